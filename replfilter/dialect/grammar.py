"""The one place that loads the dialect's grammar (``replfilter.lark``).

The parser, the shell's highlighter and tab completion all read the grammar through this module,
so a keyword added to the ``.lark`` file is parsed, highlighted and completed with no other edit.

Two costs are kept apart on purpose: :func:`keywords` reads the grammar's text only (no Lark
import), because the shell's highlighter needs the keyword list before the first prompt, and the
shell must open without loading Lark; :func:`lark_parser` imports and builds Lark on first use.

Keywords match on ASCII case-folding only (:data:`REGEX_FLAGS`): MySQL's keywords are ASCII and
its lexer folds ASCII letters only (``sql_lex.cc``'s ``find_keyword`` compares the upper-cased
bytes with the symbol table), so ``ſHOW`` or ``REPLİCATE_DO_DB`` are names or syntax errors
there, never keywords. Python's ``re.IGNORECASE`` on a ``str`` pattern would also fold U+0130,
U+0131, U+017F and U+212A onto ASCII letters; ``re.ASCII`` stops that.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from lark import Lark

GRAMMAR_PATH = Path(__file__).with_name("replfilter.lark")
ADMIN_GRAMMAR_PATH = Path(__file__).with_name("admin_statements.lark")
"""The shapes of MySQL's administrative statements (FLUSH, LOCK...), which replfilter refuses
with 1235 rather than 1064 (other_statements.py); not part of the dialect."""

# Every terminal is compiled with these flags: case-insensitive keywords fold ASCII letters only.
REGEX_FLAGS = re.ASCII

# A keyword terminal is one whose pattern is its own name, case-insensitive: ``CHANGE: "CHANGE"i``.
_KEYWORD_TERMINAL = re.compile(r'^([A-Z][A-Z0-9_]*)\s*:\s*"\1"i\s*$', re.MULTILINE)
_NONRESERVED_RULE = re.compile(r"^!nonreserved\s*:(.*?)(?=^\S)", re.MULTILINE | re.DOTALL)

# MySQL 8.4 reserved words that could otherwise be taken for names here (a bare reserved word is
# a syntax error in MySQL; the basic lexer would read it as an identifier).
RESERVED_WORDS = frozenset(
    """
    ACCESSIBLE ADD ALL ALTER ANALYZE AND AS ASC ASENSITIVE BEFORE BETWEEN BIGINT BINARY BLOB BOTH
    BY CALL CASCADE CASE CHANGE CHAR CHARACTER CHECK COLLATE COLUMN CONDITION CONSTRAINT CONTINUE
    CONVERT CREATE CROSS CUBE CUME_DIST CURRENT_DATE CURRENT_TIME CURRENT_TIMESTAMP CURRENT_USER
    CURSOR DATABASE DATABASES DAY_HOUR DAY_MICROSECOND DAY_MINUTE DAY_SECOND DEC DECIMAL DECLARE
    DEFAULT DELAYED DELETE DENSE_RANK DESC DESCRIBE DETERMINISTIC DISTINCT DISTINCTROW DIV DOUBLE
    DROP DUAL EACH ELSE ELSEIF EMPTY ENCLOSED ESCAPED EXCEPT EXISTS EXIT EXPLAIN FALSE FETCH
    FIRST_VALUE FLOAT FLOAT4 FLOAT8 FOR FORCE FOREIGN FROM FULLTEXT FUNCTION GENERATED GET GRANT
    GROUP GROUPING GROUPS HAVING HIGH_PRIORITY HOUR_MICROSECOND HOUR_MINUTE HOUR_SECOND IF IGNORE
    IN INDEX INFILE INNER INOUT INSENSITIVE INSERT INT INT1 INT2 INT3 INT4 INT8 INTEGER INTERSECT
    INTERVAL INTO IO_AFTER_GTIDS IO_BEFORE_GTIDS IS ITERATE JOIN JSON_TABLE KEY KEYS KILL LAG
    LAST_VALUE LATERAL LEAD LEADING LEAVE LEFT LIKE LIMIT LINEAR LINES LOAD LOCALTIME
    LOCALTIMESTAMP LOCK LONG LONGBLOB LONGTEXT LOOP LOW_PRIORITY MASTER_BIND
    MASTER_SSL_VERIFY_SERVER_CERT MATCH MAXVALUE MEDIUMBLOB MEDIUMINT MEDIUMTEXT MIDDLEINT
    MINUTE_MICROSECOND MINUTE_SECOND MOD MODIFIES NATURAL NOT NO_WRITE_TO_BINLOG NTH_VALUE NTILE
    NULL NUMERIC OF ON OPTIMIZE OPTIMIZER_COSTS OPTION OPTIONALLY OR ORDER OUT OUTER OUTFILE OVER
    PARTITION PERCENT_RANK PRECISION PRIMARY PROCEDURE PURGE RANGE RANK READ READS READ_WRITE REAL
    RECURSIVE REFERENCES REGEXP RELEASE RENAME REPEAT REPLACE REQUIRE RESIGNAL RESTRICT RETURN
    REVOKE RIGHT RLIKE ROW ROWS ROW_NUMBER SCHEMA SCHEMAS SECOND_MICROSECOND SELECT SENSITIVE
    SEPARATOR SET SHOW SIGNAL SMALLINT SPATIAL SPECIFIC SQL SQLEXCEPTION SQLSTATE SQLWARNING
    SQL_BIG_RESULT SQL_CALC_FOUND_ROWS SQL_SMALL_RESULT SSL STARTING STORED STRAIGHT_JOIN SYSTEM
    TABLE TERMINATED THEN TINYBLOB TINYINT TINYTEXT TO TRAILING TRIGGER TRUE UNDO UNION UNIQUE
    UNLOCK UNSIGNED UPDATE USAGE USE USING UTC_DATE UTC_TIME UTC_TIMESTAMP VALUES VARBINARY
    VARCHAR VARCHARACTER VARYING VIRTUAL WHEN WHERE WHILE WINDOW WITH WRITE XOR YEAR_MONTH
    ZEROFILL
    """.split()
)

_ASCII_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def ascii_lower(word: str) -> str:
    """``word`` with its ASCII letters lower-cased only."""
    return word.translate(_ASCII_LOWER)


def ascii_upper(word: str) -> str:
    """``word`` with its ASCII letters upper-cased and every other character kept: how MySQL's
    lexer compares a word with its keywords (``str.upper`` would turn ``ſ`` into ``S``)."""
    return word.translate(_ASCII_UPPER)


def is_reserved(word: str) -> bool:
    """True when the bare word is one of MySQL's reserved words (ASCII case-folding only)."""
    return ascii_upper(word) in RESERVED_WORDS


@lru_cache(maxsize=1)
def grammar_text() -> str:
    return GRAMMAR_PATH.read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def keywords() -> frozenset[str]:
    """The grammar's keyword terminals, read from its text (no Lark import)."""
    return frozenset(_KEYWORD_TERMINAL.findall(grammar_text()))


@lru_cache(maxsize=1)
def nonreserved_keywords() -> frozenset[str]:
    """The keywords the grammar also accepts as names (its ``nonreserved`` rule)."""
    match = _NONRESERVED_RULE.search(grammar_text())
    if match is None:
        return frozenset()
    return frozenset(re.findall(r"\b[A-Z][A-Z0-9_]*\b", match.group(1))) & keywords()


def lark_parser(transformer: Any = None) -> "Lark":
    """A LALR parser of the grammar (Lark imported here, on first use).

    With a ``transformer`` the tree is transformed during the parse (the parser's AST); without
    one the parser serves interactive parsing (completion asks which terminals may come next).
    Callers cache what they build."""
    from lark import Lark

    return Lark(
        grammar_text(),
        parser="lalr",
        lexer="basic",
        transformer=transformer,
        maybe_placeholders=True,
        propagate_positions=False,
        g_regex_flags=REGEX_FLAGS,
        cache=True,
    )


@lru_cache(maxsize=1)
def admin_parser() -> "Lark":
    """A LALR parser of ``admin_statements.lark``, built once, on first use (a failed parse)."""
    from lark import Lark

    return Lark(ADMIN_GRAMMAR_PATH.read_text(encoding="utf-8"), parser="lalr", g_regex_flags=REGEX_FLAGS)


@lru_cache(maxsize=1)
def plain_parser() -> "Lark":
    """The grammar without a transformer, built once (completion's interactive parses)."""
    return lark_parser()
