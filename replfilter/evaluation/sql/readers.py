"""Per-statement readers: classify a statement by its head, then read its table list.

:func:`analyse_statement` is the entry: the tokenizer finds the statement head and its command
kind (MySQL's ``SQLCOM_*``, :class:`~.events.CommandKind`); the kind's reader then reads the
rest — with sqlglot's MySQL dialect where it can (DML in :mod:`.dml`; CREATE/ALTER/DROP
TABLE and VIEW, indexes, TRUNCATE here), else with the tokenizer (RENAME TABLE, GRANT/REVOKE,
LOAD DATA, CREATE TRIGGER, ALTER DATABASE, XA ...).

Which tables each statement lists, and which are updating, follows
mysql-filter-evaluation.md, section 3.2 ("Statement-kind → table list"); where that section
marks a list unverified (GRANT ... ON db.tbl, ANALYZE/OPTIMIZE/REPAIR), the analysis says so in
its ``notes``. When the text cannot say (DROP TRIGGER: the replica looks the trigger up; a CALL;
an unmodelled statement), ``tables_known`` is False rather than a guess.
"""

from __future__ import annotations

from typing import Callable, Sequence

from sqlglot import exp

from ...core.errors import ER, error_line
from ...replica.catalog import Catalog
from ..events import CommandKind, TableRef
from .analysis import ReaderContext, StatementAnalysis
from .dml import read_dml, read_load
from .tokens import HeadError, SqlEventsError, Token, TokenCursor, head_words, tokenize
from .tree import cte_names, parse_tree, read_tables, tree_table_ref

CK = CommandKind
Reader = Callable[[ReaderContext], StatementAnalysis]


def analyse_statement(
    sql: str, default_db: str = "", use_sqlglot: bool = True, catalog: Catalog | None = None
) -> StatementAnalysis:
    """Read one statement's command kind and table list (format-independent).

    ``use_sqlglot=False`` reads with the tokenizer only (the fallback path, for comparison);
    ``catalog`` is the source's schema, which decides what the text leaves open (the owner of
    an unqualified column in a multi-table UPDATE)."""
    tokens, markers = tokenize(sql)
    if tokens and tokens[-1].kind == "op" and tokens[-1].text == ";":
        tokens = tokens[:-1]
    if not tokens:
        raise SqlEventsError("empty statement")
    command, reader = classify(tokens)
    try:
        return reader(ReaderContext(sql, tokens, markers, command, default_db, use_sqlglot, catalog))
    except HeadError as err:
        raise SqlEventsError(f"cannot read {command.value} statement: {err}") from None


# --- classification -------------------------------------------------------------------------


_CREATE_MODIFIERS = {"OR", "REPLACE", "TEMPORARY", "UNIQUE", "FULLTEXT", "SPATIAL", "AGGREGATE", "ONLINE", "OFFLINE", "UNDO", "EXTERNAL"}
_ALTER_MODIFIERS = {"ONLINE", "OFFLINE", "IGNORE"}


def _object_word(tokens: Sequence[Token], start: int) -> tuple[str, int]:
    """Skip CREATE/ALTER/DROP modifiers (OR REPLACE, ALGORITHM=x, DEFINER=u@h, SQL SECURITY x,
    TEMPORARY ...) and return the object keyword and its index."""
    i = start
    n = len(tokens)
    while i < n:
        word = tokens[i].upper
        if word in _CREATE_MODIFIERS or word in _ALTER_MODIFIERS:
            i += 1
        elif word in ("ALGORITHM", "DEFINER") and i + 1 < n and tokens[i + 1].text == "=":
            i = _skip_definer(tokens, i + 2) if word == "DEFINER" else i + 3
        elif word == "SQL" and i + 1 < n and tokens[i + 1].upper == "SECURITY":
            i += 3
        else:
            return word, i
    return "", i


def _skip_definer(tokens: Sequence[Token], i: int) -> int:
    """Skip ``user@host`` / ``CURRENT_USER[()]`` in any quoting."""
    n = len(tokens)
    if i < n and tokens[i].upper == "CURRENT_USER":
        i += 1
        if i + 1 < n and tokens[i].text == "(" and tokens[i + 1].text == ")":
            i += 2
        return i
    if i < n:
        i += 1
    if i < n and tokens[i].kind == "var":  # @'host' / @host lexed as a variable
        i += 1
    elif i + 1 < n and tokens[i].text == "@":
        i += 2
    return i


def classify(tokens: list[Token]) -> tuple[CommandKind, Reader]:
    """Command kind and the reader that reads the rest."""
    w = head_words(tokens)
    first = w[0]
    second = w[1] if len(w) > 1 else ""
    if tokens[0].kind == "op" and tokens[0].text == "(":
        return CK.OTHER, _not_logged("a parenthesised query is not written to the binary log")
    if first == "INSERT":
        return CK.INSERT, read_dml
    if first == "REPLACE":
        return CK.REPLACE, read_dml
    if first in ("UPDATE", "DELETE"):
        return (CK.UPDATE if first == "UPDATE" else CK.DELETE), read_dml
    if first == "WITH":
        return CK.OTHER, read_dml
    if first == "LOAD" and second in ("DATA", "XML"):
        return CK.LOAD, read_load
    if first == "CREATE":
        return _classify_create(tokens)
    if first == "ALTER":
        return _classify_alter(tokens)
    if first == "DROP":
        return _classify_drop(tokens)
    if first == "RENAME":
        if second in ("TABLE", "TABLES"):
            return CK.RENAME_TABLE, _rename
        return (CK.RENAME_USER if second == "USER" else CK.OTHER), _no_tables
    if first == "TRUNCATE":
        return CK.TRUNCATE, _truncate
    if first in ("GRANT", "REVOKE"):
        return (CK.GRANT if first == "GRANT" else CK.REVOKE), _grant
    if first in ("ANALYZE", "OPTIMIZE", "REPAIR"):
        return CK[first], _admin_tables
    if first in ("BEGIN", "START") or (first == "XA"):
        return _classify_transaction(w)
    if first in ("COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE"):
        return _classify_transaction(w)
    if first == "SET":
        if second == "PASSWORD":
            return CK.SET_PASSWORD, _no_tables
        if second in ("ROLE", "DEFAULT") or second == "RESOURCE":
            return CK.OTHER, _no_tables
        return CK.SET_OPTION, _not_logged(
            "SET is not written to the binary log as a statement (session values travel in event headers)"
        )
    if first == "USE":
        return CK.OTHER, _use
    if first == "CALL":
        return CK.OTHER, _unknown(
            "CALL is not logged itself; the statements the procedure runs are logged one by one",
            logged=False,
        )
    if first in _NOT_LOGGED:
        return CK.OTHER, _not_logged(f"{first} is not written to the binary log")
    if first == "FLUSH":
        return CK.OTHER, _flush
    if first in ("INSTALL", "UNINSTALL", "PURGE", "RESET", "CHANGE", "STOP", "KILL"):
        return CK.OTHER, _no_tables
    if first == "BINLOG":
        return CK.OTHER, _unknown("BINLOG is not modelled; the events it holds are unknown")
    return CK.OTHER, _refused_by_parser


def _refused_by_parser(ctx: ReaderContext) -> StatementAnalysis:
    """No MySQL statement starts this way: the source's parser refuses it with 1064 (``near``
    the text from its first token, as the server quotes at most 80 characters of it)."""
    near = ctx.sql[ctx.tokens[0].start:].strip()[:80]
    error = error_line(ER.PARSE_ERROR, near, 1 + ctx.sql.count("\n", 0, ctx.tokens[0].start))
    return StatementAnalysis(
        CK.OTHER, logged=False, source_error=error,
        notes=(f"the source refuses it ({error}): nothing is logged",),
    )


def _flush(ctx: ReaderContext) -> StatementAnalysis:
    """FLUSH is logged unless NO_WRITE_TO_BINLOG/LOCAL (or WITH READ LOCK / FOR EXPORT). With a
    table list, whether the replica's table rules see those tables is not modelled: the
    analysis says the tables are not known rather than assume either way."""
    cur = TokenCursor(ctx.tokens, 1)
    if cur.accept("NO_WRITE_TO_BINLOG", "LOCAL"):
        return StatementAnalysis(CK.OTHER, logged=False, notes=("NO_WRITE_TO_BINLOG/LOCAL: not logged",))
    if not cur.accept("TABLE", "TABLES"):
        return StatementAnalysis(CK.OTHER)
    if cur.find_word("WITH") is not None or cur.find_word("FOR") is not None:
        return StatementAnalysis(
            CK.OTHER, logged=False, notes=("FLUSH TABLES ... WITH READ LOCK / FOR EXPORT is not logged",),
        )
    if cur.done:
        return StatementAnalysis(CK.OTHER)
    return StatementAnalysis(
        CK.OTHER, tables_known=False,
        notes=("FLUSH TABLES with a table list is not modelled: whether the replica's table rules "
               "see its tables is not known",),
    )


_NOT_LOGGED = {
    "SELECT", "TABLE", "VALUES", "SHOW", "DESCRIBE", "DESC", "EXPLAIN", "HELP", "LOCK", "UNLOCK",
    "CHECK", "CHECKSUM", "HANDLER", "PREPARE", "EXECUTE", "DEALLOCATE", "DO", "CACHE", "SHUTDOWN",
    "RESTART", "CLONE", "IMPORT", "GET", "SIGNAL", "RESIGNAL",
}


def _classify_create(tokens: list[Token]):
    word, _ = _object_word(tokens, 1)
    kinds = {
        "TABLE": (CK.CREATE_TABLE, _create_table),
        "DATABASE": (CK.CREATE_DB, _database),
        "SCHEMA": (CK.CREATE_DB, _database),
        "VIEW": (CK.CREATE_VIEW, _view),
        "INDEX": (CK.CREATE_INDEX, _index),
        "TRIGGER": (CK.CREATE_TRIGGER, _create_trigger),
        "PROCEDURE": (CK.CREATE_PROCEDURE, _no_tables),
        "FUNCTION": (CK.CREATE_FUNCTION, _no_tables),
        "EVENT": (CK.CREATE_EVENT, _no_tables),
        "USER": (CK.CREATE_USER, _no_tables),
        "ROLE": (CK.CREATE_ROLE, _no_tables),
    }
    return kinds.get(word, (CK.OTHER, _no_tables))


def _classify_alter(tokens: list[Token]):
    word, _ = _object_word(tokens, 1)
    kinds = {
        "TABLE": (CK.ALTER_TABLE, _alter_table),
        "DATABASE": (CK.ALTER_DB, _database),
        "SCHEMA": (CK.ALTER_DB, _database),
        "VIEW": (CK.CREATE_VIEW, _view),
        "PROCEDURE": (CK.ALTER_PROCEDURE, _no_tables),
        "FUNCTION": (CK.ALTER_FUNCTION, _no_tables),
        "EVENT": (CK.ALTER_EVENT, _no_tables),
        "USER": (CK.ALTER_USER, _no_tables),
    }
    return kinds.get(word, (CK.OTHER, _no_tables))


def _classify_drop(tokens: list[Token]):
    word, _ = _object_word(tokens, 1)
    kinds = {
        "TABLE": (CK.DROP_TABLE, _drop_tables),
        "TABLES": (CK.DROP_TABLE, _drop_tables),
        "DATABASE": (CK.DROP_DB, _database),
        "SCHEMA": (CK.DROP_DB, _database),
        "VIEW": (CK.DROP_VIEW, _drop_tables),
        "INDEX": (CK.DROP_INDEX, _index),
        "TRIGGER": (CK.DROP_TRIGGER, _drop_trigger),
        "PROCEDURE": (CK.DROP_PROCEDURE, _no_tables),
        "FUNCTION": (CK.DROP_FUNCTION, _no_tables),
        "EVENT": (CK.DROP_EVENT, _no_tables),
        "USER": (CK.DROP_USER, _no_tables),
        "ROLE": (CK.DROP_ROLE, _no_tables),
    }
    return kinds.get(word, (CK.OTHER, _no_tables))


def _classify_transaction(w: list[str]):
    first, second = w[0], (w[1] if len(w) > 1 else "")
    rest = [x for x in w[1:] if x]
    if first == "BEGIN" or (first == "START" and second == "TRANSACTION"):
        return CK.BEGIN, _no_tables
    if first == "COMMIT":
        return CK.COMMIT, _no_tables
    if first == "ROLLBACK":
        if "TO" in rest:
            return CK.ROLLBACK_TO_SAVEPOINT, _no_tables
        return CK.ROLLBACK, _no_tables
    if first == "SAVEPOINT":
        return CK.SAVEPOINT, _no_tables
    if first == "RELEASE" and second == "SAVEPOINT":
        return CK.RELEASE_SAVEPOINT, _no_tables
    if first == "XA":
        xa = {
            "START": CK.XA_START, "BEGIN": CK.XA_START, "END": CK.XA_END, "PREPARE": CK.XA_PREPARE,
            "COMMIT": CK.XA_COMMIT, "ROLLBACK": CK.XA_ROLLBACK,
        }
        if second in xa:
            return xa[second], _no_tables
        return CK.OTHER, _not_logged(f"XA {second} is not written to the binary log")
    return CK.OTHER, _unknown(f"statement kind {first!r} is not modelled; its tables are unknown")


# --- simple handlers ------------------------------------------------------------------------


def _no_tables(ctx: ReaderContext) -> StatementAnalysis:
    return StatementAnalysis(ctx.command)


def _not_logged(note: str):
    def handler(ctx: ReaderContext) -> StatementAnalysis:
        return StatementAnalysis(ctx.command, logged=False, notes=(note,))

    return handler


def _unknown(note: str, logged: bool = True):
    def handler(ctx: ReaderContext) -> StatementAnalysis:
        return StatementAnalysis(ctx.command, logged=logged, tables_known=False, notes=(note,))

    return handler


def _use(ctx: ReaderContext) -> StatementAnalysis:
    cur = TokenCursor(ctx.tokens, 1)
    db = cur.name("database name")
    cur.expect_end()
    return StatementAnalysis(
        CK.OTHER, logged=False, use_db=db,
        notes=("USE is not logged; it sets the default database of the statements that follow",),
    )


# --- DDL and administrative statements --------------------------------------------------------


def _create_table(ctx: ReaderContext) -> StatementAnalysis:
    tree = parse_tree(ctx)
    if isinstance(tree, exp.Create) and (tree.args.get("kind") or "").upper() == "TABLE":
        target_node = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
        target = tree_table_ref(target_node, True) if isinstance(target_node, exp.Table) else None
        if target is not None:
            props = list(tree.find_all(exp.TemporaryProperty))
            reads = read_tables(tree, {id(target_node)}, cte_names(tree))
            is_select = isinstance(tree.expression, exp.Query)
            return StatementAnalysis(
                CK.CREATE_TABLE, (target, *reads), temporary=bool(props),
                if_exists=bool(tree.args.get("exists")), create_select=is_select, parsed_by="sqlglot",
            )
    return _create_table_tokens(ctx)


def _create_table_tokens(ctx: ReaderContext) -> StatementAnalysis:
    cur = TokenCursor(ctx.tokens, 1)
    temporary = False
    while cur.word() != "TABLE" and not cur.done:
        temporary |= cur.word() == "TEMPORARY"
        cur.pos += 1
    cur.expect("TABLE")
    if_not_exists = cur.word() == "IF"
    if if_not_exists:
        cur.expect("IF")
        cur.expect("NOT")
        cur.expect("EXISTS")
    db, table = cur.qualified()
    tables = [TableRef(db, table)]
    notes: list[str] = []
    like_at = TokenCursor(ctx.tokens, cur.pos).find_word("LIKE")
    if cur.accept_op("(") and cur.word() == "LIKE":
        like_at = cur.pos
    if like_at is not None:
        src = TokenCursor(ctx.tokens, like_at + 1)
        sdb, stable = src.qualified()
        tables.append(TableRef(sdb, stable, False))
    create_select = any(t.upper == "SELECT" for t in ctx.tokens[cur.pos :])
    if create_select:
        notes.append("read by the fallback tokenizer: tables the SELECT reads are not listed")
    return StatementAnalysis(
        CK.CREATE_TABLE, tuple(tables), temporary=temporary, if_exists=if_not_exists,
        create_select=create_select, notes=tuple(notes),
    )


def _alter_table(ctx: ReaderContext) -> StatementAnalysis:
    """ALTER TABLE t ...: t updating; ``EXCHANGE PARTITION p WITH TABLE x`` lists x too,
    updating (the parser adds the swap table with the updating option: both tables change)."""
    exchanged = _exchange_table(ctx)
    tree = parse_tree(ctx)
    if isinstance(tree, exp.Alter) and isinstance(tree.this, exp.Table):
        target = tree_table_ref(tree.this, True)
        if target is not None:
            return StatementAnalysis(CK.ALTER_TABLE, (target, *exchanged), parsed_by="sqlglot")
    cur = TokenCursor(ctx.tokens, 1)
    cur.skip_words(*_ALTER_MODIFIERS)
    cur.expect("TABLE")
    db, table = cur.qualified()
    return StatementAnalysis(CK.ALTER_TABLE, (TableRef(db, table), *exchanged))


def _exchange_table(ctx: ReaderContext) -> tuple[TableRef, ...]:
    cur = TokenCursor(ctx.tokens, 1)
    at = cur.find_word("EXCHANGE")
    if at is None:
        return ()
    cur.pos = at + 1
    cur.expect("PARTITION")
    cur.name("partition name")
    cur.expect("WITH")
    cur.expect("TABLE")
    return (TableRef(*cur.qualified()),)


def _truncate(ctx: ReaderContext) -> StatementAnalysis:
    tree = parse_tree(ctx)
    if isinstance(tree, exp.TruncateTable) and len(tree.expressions) == 1:
        target = tree_table_ref(tree.expressions[0], True) if isinstance(tree.expressions[0], exp.Table) else None
        if target is not None:
            return StatementAnalysis(CK.TRUNCATE, (target,), parsed_by="sqlglot")
    cur = TokenCursor(ctx.tokens, 1)
    cur.accept("TABLE")
    db, table = cur.qualified()
    cur.expect_end()
    return StatementAnalysis(CK.TRUNCATE, (TableRef(db, table),))


def _drop_tables(ctx: ReaderContext) -> StatementAnalysis:
    """DROP [TEMPORARY] TABLE|TABLES [IF EXISTS] a, b ... / DROP VIEW [IF EXISTS] v, w."""
    tree = parse_tree(ctx)
    kind = (tree.args.get("kind") or "").upper() if isinstance(tree, exp.Drop) else ""
    if isinstance(tree, exp.Drop) and kind in ("TABLE", "VIEW"):
        refs = [tree_table_ref(t, True) for t in tree.args.get("tables") or []]
        if refs and all(refs):
            return StatementAnalysis(
                ctx.command, tuple(refs), temporary=bool(tree.args.get("temporary")),  # type: ignore[arg-type]
                if_exists=bool(tree.args.get("exists")), parsed_by="sqlglot",
            )
    cur = TokenCursor(ctx.tokens, 1)
    temporary = cur.accept("TEMPORARY")
    cur.expect("TABLE", "TABLES", "VIEW")
    if_exists = cur.accept("IF")
    if if_exists:
        cur.expect("EXISTS")
    tables = [TableRef(*cur.qualified())]
    while cur.accept_op(","):
        tables.append(TableRef(*cur.qualified()))
    cur.skip_words("RESTRICT", "CASCADE")
    cur.expect_end()
    return StatementAnalysis(ctx.command, tuple(tables), temporary=temporary, if_exists=if_exists)


def _rename(ctx: ReaderContext) -> StatementAnalysis:
    """RENAME TABLE a TO b [, c TO d]: every name, old and new, is an updating table."""
    cur = TokenCursor(ctx.tokens, 2)
    tables = []
    while True:
        tables.append(TableRef(*cur.qualified()))
        cur.expect("TO")
        tables.append(TableRef(*cur.qualified()))
        if not cur.accept_op(","):
            break
    cur.expect_end()
    return StatementAnalysis(CK.RENAME_TABLE, tuple(tables))


def _database(ctx: ReaderContext) -> StatementAnalysis:
    """CREATE/ALTER/DROP DATABASE|SCHEMA [IF [NOT] EXISTS] [name]: the source logs the named
    database as the event's db (ALTER without a name: the default database)."""
    cur = TokenCursor(ctx.tokens, 1)
    _, index = _object_word(ctx.tokens, 1)
    cur.pos = index + 1
    if_exists = False
    if cur.accept("IF"):
        cur.accept("NOT")
        cur.expect("EXISTS")
        if_exists = True
    name: str | None = None
    tok = cur.peek()
    options = {"DEFAULT", "CHARACTER", "CHARSET", "COLLATE", "ENCRYPTION", "READ", "UPGRADE"}
    if tok is not None and tok.is_name and not (tok.kind == "word" and tok.upper in options):
        name = tok.text
    if name is None and ctx.command is not CK.ALTER_DB:
        raise HeadError("expected a database name")
    if name is None:
        if not ctx.default_db:
            return StatementAnalysis(
                CK.ALTER_DB, logged=False,
                notes=("ALTER DATABASE without a name and no default database fails on the source",),
            )
        name = ctx.default_db
    return StatementAnalysis(ctx.command, event_db=name, if_exists=if_exists)


def _view(ctx: ReaderContext) -> StatementAnalysis:
    """CREATE/ALTER VIEW v AS SELECT ...: v updating, the SELECT's tables read."""
    tree = parse_tree(ctx)
    if isinstance(tree, (exp.Create, exp.Alter)) and isinstance(tree.this, exp.Table):
        kind = (tree.args.get("kind") or "").upper()
        target = tree_table_ref(tree.this, True)
        if kind == "VIEW" and target is not None:
            reads = read_tables(tree, {id(tree.this)}, cte_names(tree))
            return StatementAnalysis(CK.CREATE_VIEW, (target, *reads), parsed_by="sqlglot")
    _, index = _object_word(ctx.tokens, 1)
    cur = TokenCursor(ctx.tokens, index + 1)
    db, view = cur.qualified("view name")
    return StatementAnalysis(
        CK.CREATE_VIEW, (TableRef(db, view),),
        notes=("read by the fallback tokenizer: tables the view's SELECT reads are not listed",),
    )


def _index(ctx: ReaderContext) -> StatementAnalysis:
    """CREATE [UNIQUE|FULLTEXT|SPATIAL] INDEX i [USING x] ON t (...) / DROP INDEX i ON t."""
    tree = parse_tree(ctx)
    table_node = None
    if isinstance(tree, exp.Create) and isinstance(tree.this, exp.Index):
        table_node = tree.this.args.get("table")
    elif isinstance(tree, exp.Drop) and isinstance(tree.args.get("cluster"), exp.OnProperty):
        table_node = tree.args["cluster"].this
    if isinstance(table_node, exp.Table) and tree_table_ref(table_node, True) is not None:
        return StatementAnalysis(ctx.command, (tree_table_ref(table_node, True),), parsed_by="sqlglot")  # type: ignore[arg-type]
    cur = TokenCursor(ctx.tokens, 1)
    on = cur.find_word("ON")
    if on is None:
        raise HeadError("expected ON table_name")
    cur.pos = on + 1
    return StatementAnalysis(ctx.command, (TableRef(*cur.qualified()),))


def _create_trigger(ctx: ReaderContext) -> StatementAnalysis:
    """CREATE [DEFINER=u] TRIGGER [IF NOT EXISTS] [db.]name BEFORE|AFTER event ON t FOR EACH ROW:
    the subject table ``t`` is in the list, updating (the parser adds it TL_OPTION_UPDATING)."""
    _, index = _object_word(ctx.tokens, 1)
    cur = TokenCursor(ctx.tokens, index + 1)
    if cur.accept("IF"):
        cur.expect("NOT")
        cur.expect("EXISTS")
    cur.qualified("trigger name")
    cur.expect("BEFORE", "AFTER")
    cur.expect("INSERT", "UPDATE", "DELETE")
    cur.expect("ON")
    db, table = cur.qualified()
    return StatementAnalysis(
        CK.CREATE_TRIGGER, (TableRef(db, table),),
        notes=("tables the trigger body changes are not in the list: they never influence the decision",),
    )


def _drop_trigger(ctx: ReaderContext) -> StatementAnalysis:
    cur = TokenCursor(ctx.tokens, 2)
    if_exists = cur.accept("IF")
    if if_exists:
        cur.expect("EXISTS")
    trigger = cur.qualified("trigger name")
    if trigger[0] is None and not ctx.default_db:
        # sql_yacc.yy, sp_name: an unqualified name takes the session's database, and with none
        # the parser fails with ER_NO_DB_ERROR (IF EXISTS or not), so nothing reaches the log
        error = error_line(ER.NO_DB_ERROR)
        return StatementAnalysis(
            CK.DROP_TRIGGER, logged=False, source_error=error,
            notes=(f"the trigger name has no database and none is selected: the source refuses it ({error}) and logs nothing",),
        )
    return StatementAnalysis(
        CK.DROP_TRIGGER, if_exists=if_exists, tables_known=False, trigger=trigger,
        notes=("the statement names the trigger, not its table: the replica finds the table in its own catalog",),
    )


def _grant(ctx: ReaderContext) -> StatementAnalysis:
    """GRANT/REVOKE privileges ON [TABLE|FUNCTION|PROCEDURE] level TO|FROM ...

    Only a table-level target (``db.tbl`` or ``tbl``) puts a table in the list; ``*``, ``*.*``,
    ``db.*``, routines, PROXY and role grants have none. Whether 8.4 really lists the table is
    unverified (mysql-filter-evaluation.md, section 11); we follow the parser rule that adds it as updating.
    """
    cur = TokenCursor(ctx.tokens, 1)
    on = cur.find_word("ON")
    until = cur.find_word("TO" if ctx.command is CK.GRANT else "FROM")
    if on is None or (until is not None and until < on):
        return StatementAnalysis(ctx.command)  # role grant: GRANT r TO u
    if any(t.upper == "PROXY" for t in ctx.tokens[1:on]):
        return StatementAnalysis(ctx.command)
    cur.pos = on + 1
    if cur.accept("FUNCTION", "PROCEDURE"):
        return StatementAnalysis(ctx.command)
    cur.accept("TABLE")
    if cur.accept_op("*"):
        if cur.accept_op("."):
            if not cur.accept_op("*"):
                raise HeadError("expected * after *.")
        return StatementAnalysis(ctx.command)
    first = cur.name("privilege level")
    if cur.accept_op("."):
        if cur.accept_op("*"):
            return StatementAnalysis(ctx.command)
        ref = TableRef(first, cur.name("table name"))
    else:
        ref = TableRef(None, first)
    return StatementAnalysis(
        ctx.command, (ref,),
        notes=("assumed: a table-level GRANT/REVOKE lists its table as updating (unverified: mysql-filter-evaluation.md, section 11)",),
    )


def _admin_tables(ctx: ReaderContext) -> StatementAnalysis:
    """ANALYZE/OPTIMIZE/REPAIR [NO_WRITE_TO_BINLOG|LOCAL] TABLE t, ...: logged unless
    NO_WRITE_TO_BINLOG/LOCAL; tables assumed updating (unverified)."""
    cur = TokenCursor(ctx.tokens, 1)
    if cur.accept("NO_WRITE_TO_BINLOG", "LOCAL"):
        return StatementAnalysis(ctx.command, logged=False, notes=("NO_WRITE_TO_BINLOG/LOCAL: not logged",))
    cur.expect("TABLE", "TABLES")
    tables = [TableRef(*cur.qualified())]
    while cur.accept_op(","):
        tables.append(TableRef(*cur.qualified()))
    return StatementAnalysis(
        ctx.command, tuple(tables),
        notes=("assumed: the named tables are listed as updating (unverified: mysql-filter-evaluation.md, section 11)",),
    )
