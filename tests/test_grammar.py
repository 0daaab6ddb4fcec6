"""Conformance tests of the parser and the statement splitter.

Each test names the checklist item of ``mysql-filter-statements.md`` section 13 ("Grammar /
parsing") or the section of the spec it comes from. Errors are compared whole: number, SQLSTATE
and the exact 8.4 text.
"""

from __future__ import annotations

import pytest

from replfilter.dialect.parser import parse, parse_statement
from replfilter.dialect.splitter import ClientCommand, StatementBuffer, StatementText, split_statements
from replfilter.dialect import ast
from replfilter.core.errors import MySQLError
from replfilter.core.filters import FilterType
from replfilter.core.version import ServerVersion

V80 = ServerVersion.MYSQL_8_0
DO_DB = FilterType.DO_DB
IGNORE_DB = FilterType.IGNORE_DB
DO_TABLE = FilterType.DO_TABLE
IGNORE_TABLE = FilterType.IGNORE_TABLE
WILD_DO = FilterType.WILD_DO_TABLE
WILD_IGNORE = FilterType.WILD_IGNORE_TABLE
REWRITE = FilterType.REWRITE_DB

SYNTAX = (
    "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server "
    "version for the right syntax to use near '{near}' at line {line}"
)


def syntax_error(near: str, line: int = 1) -> MySQLError:
    return MySQLError(1064, "42000", SYNTAX.format(near=near, line=line))


def error_of(text: str) -> MySQLError:
    with pytest.raises(MySQLError) as info:
        parse_statement(text)
    return info.value


def filters_of(text: str) -> ast.ChangeReplicationFilter:
    statement = parse_statement(text)
    assert isinstance(statement, ast.ChangeReplicationFilter)
    return statement


def only_list(text: str) -> tuple[object, ...]:
    statement = filters_of(text)
    assert len(statement.filters) == 1
    return statement.filters[0].rules


WILD_FORMAT = MySQLError(
    3067,
    "HY000",
    "Supplied filter list contains a value which is not in the required format 'db_pattern.table_pattern'",
)


def lf_error(value: str) -> MySQLError:
    return MySQLError(1525, "HY000", f"Incorrect argument contains not-allowed LF value: '{value}'")


# ---- keywords, operator, whitespace ---------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (db1)",
        "change replication filter replicate_do_db=(db1)",
        "Change Replication Filter Replicate_Do_Db = ( db1 )",
        "cHaNgE rEpLiCaTiOn FiLtEr RePlIcAtE_dO_dB\n=\n(\ndb1\n)",
        "CHANGE\tREPLICATION\tFILTER\tREPLICATE_DO_DB\t=\t(db1)",
    ],
)
def test_keywords_are_case_insensitive_and_whitespace_is_free(text: str) -> None:
    assert parse_statement(text) == ast.ChangeReplicationFilter((ast.FilterDef(DO_DB, ("db1",)),))


def test_equals_sign_is_required() -> None:
    assert error_of("CHANGE REPLICATION FILTER REPLICATE_DO_DB (db1)") == syntax_error("(db1)")


def test_other_operators_are_refused() -> None:
    assert error_of("CHANGE REPLICATION FILTER REPLICATE_DO_DB := (db1)") == syntax_error(":= (db1)")
    assert error_of("CHANGE REPLICATION FILTER REPLICATE_DO_DB == (db1)") == syntax_error("= (db1)")


def test_parentheses_are_required_even_for_one_element() -> None:
    assert error_of("CHANGE REPLICATION FILTER REPLICATE_DO_DB = db1") == syntax_error("db1")


@pytest.mark.parametrize("spelling", ["db1.t1", "db1 . t1", "db1 .t1", "db1. t1", "db1\n.\nt1", "db1/* c */./* c */t1"])
def test_whitespace_and_comments_around_the_dot(spelling: str) -> None:
    rules = only_list(f"CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = ({spelling})")
    assert rules == (ast.QualifiedName("db1", "t1"),)


def test_whitespace_around_commas() -> None:
    rules = only_list("CHANGE REPLICATION FILTER REPLICATE_DO_DB = ( a ,b , c,d )")
    assert rules == ("a", "b", "c", "d")


def test_filter_types_can_come_in_any_order() -> None:
    statement = filters_of(
        "CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((a, b)), REPLICATE_DO_DB = (x), "
        "REPLICATE_WILD_IGNORE_TABLE = ('p.%')"
    )
    assert [f.ftype for f in statement.filters] == [REWRITE, DO_DB, WILD_IGNORE]


# ---- at least one filter_def ----------------------------------------------------------------


def test_no_filter_definition_is_a_syntax_error() -> None:
    assert error_of("CHANGE REPLICATION FILTER") == syntax_error("")


def test_channel_clause_alone_is_a_syntax_error() -> None:
    assert error_of("CHANGE REPLICATION FILTER FOR CHANNEL 'x'") == syntax_error("FOR CHANNEL 'x'")


def test_trailing_comma_before_channel_is_a_syntax_error() -> None:
    assert error_of("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a), FOR CHANNEL 'x'") == syntax_error(
        "FOR CHANNEL 'x'"
    )


def test_trailing_comma_inside_a_list_is_a_syntax_error() -> None:
    assert error_of("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a,)") == syntax_error(")")


# ---- each type with (), one element, several elements -----------------------------------------

EMPTY_AND_ELEMENTS = [
    (DO_DB, "db1", "db1", "db1, db2, db3", ("db1", "db2", "db3")),
    (IGNORE_DB, "db1", "db1", "db1, db2, db3", ("db1", "db2", "db3")),
    (
        DO_TABLE,
        "db1.t1",
        ast.QualifiedName("db1", "t1"),
        "db1.t1, db2.t2, `db3`.t3",
        (ast.QualifiedName("db1", "t1"), ast.QualifiedName("db2", "t2"), ast.QualifiedName("db3", "t3")),
    ),
    (
        IGNORE_TABLE,
        "db1.t1",
        ast.QualifiedName("db1", "t1"),
        "db1.t1, db2.t2",
        (ast.QualifiedName("db1", "t1"), ast.QualifiedName("db2", "t2")),
    ),
    (WILD_DO, "'db%.t1%'", "db%.t1%", "'a.%', 'b%.c_', '%.%'", ("a.%", "b%.c_", "%.%")),
    (WILD_IGNORE, "'db%.t1%'", "db%.t1%", "'a.%', 'b%.c_'", ("a.%", "b%.c_")),
    (REWRITE, "(db1, db2)", ("db1", "db2"), "(a,b),(c,d), (e , f)", (("a", "b"), ("c", "d"), ("e", "f"))),
]


@pytest.mark.parametrize("ftype", [row[0] for row in EMPTY_AND_ELEMENTS], ids=lambda t: t.keyword)
def test_each_type_accepts_an_empty_list(ftype: FilterType) -> None:
    assert only_list(f"CHANGE REPLICATION FILTER {ftype.keyword} = ()") == ()
    assert only_list(f"CHANGE REPLICATION FILTER {ftype.keyword} = ( )") == ()


@pytest.mark.parametrize("ftype,one,one_value,several,several_values", EMPTY_AND_ELEMENTS, ids=lambda v: getattr(v, "keyword", ""))
def test_each_type_with_one_and_with_several_elements(
    ftype: FilterType, one: str, one_value: object, several: str, several_values: tuple[object, ...]
) -> None:
    assert only_list(f"CHANGE REPLICATION FILTER {ftype.keyword} = ({one})") == (one_value,)
    assert only_list(f"CHANGE REPLICATION FILTER {ftype.keyword} = ({several})") == several_values


def test_all_seven_types_in_one_statement() -> None:
    statement = filters_of(
        "CHANGE REPLICATION FILTER Replicate_Do_DB = (), Replicate_Ignore_DB = (), Replicate_Do_Table = (), "
        "Replicate_Ignore_Table = (), Replicate_Wild_Do_Table = (), Replicate_Wild_Ignore_Table = (), "
        "Replicate_Rewrite_DB = ()"
    )
    assert [f.ftype for f in statement.filters] == list(FilterType)
    assert all(f.rules == () for f in statement.filters)


# ---- DO_DB / IGNORE_DB elements ------------------------------------------------------------------


def test_db_list_refuses_a_string_literal() -> None:
    assert error_of("CHANGE REPLICATION FILTER REPLICATE_DO_DB = ('db1')") == syntax_error("'db1')")


def test_double_quotes_make_a_string_not_a_name() -> None:
    """sql_mode ANSI_QUOTES is not simulated: "db1" is a string literal, so not a database name,
    while a double-quoted wild pattern or channel name is accepted."""
    assert error_of('CHANGE REPLICATION FILTER REPLICATE_DO_DB = ("db1")') == syntax_error('"db1")')
    assert error_of('CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = (("a", b))') == syntax_error('"a", b))')


def test_db_list_keeps_backticked_names_verbatim() -> None:
    """rpl_multi_source_filter step 11: (db2, `db32`, `db,3`)."""
    rules = only_list("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (db2, `db32`, `db,3`)")
    assert rules == ("db2", "db32", "db,3")


def test_doubled_backticks_collapse() -> None:
    assert only_list("CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (`a``b`, ````)") == ("a`b", "`")


def test_db_names_are_not_case_folded_by_the_parser() -> None:
    assert only_list("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (MyDb, `UPPER`)") == ("MyDb", "UPPER")


def test_non_reserved_keywords_can_name_databases() -> None:
    rules = only_list(
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (filter, replication, channel, replicate_do_db, source, status)"
    )
    assert rules == ("filter", "replication", "channel", "replicate_do_db", "source", "status")


@pytest.mark.parametrize("word", ["select", "FOR", "change", "table", "Where"])
def test_reserved_words_need_backticks(word: str) -> None:
    assert error_of(f"CHANGE REPLICATION FILTER REPLICATE_DO_DB = ({word})") == syntax_error(f"{word})")
    assert only_list(f"CHANGE REPLICATION FILTER REPLICATE_DO_DB = (`{word}`)") == (word,)


def test_identifiers_may_start_with_a_digit_but_not_be_all_digits() -> None:
    assert only_list("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (1db, db$1, é)") == ("1db", "db$1", "é")
    assert error_of("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (123)") == syntax_error("123)")


def test_empty_backtick_name_in_a_db_list() -> None:
    """Spec section 12 leaves `` `` `` in REPLICATE_DO_DB undetermined (no check is made on DO_DB
    names). replfilter's choice: accepted, stored as an empty database name."""
    assert only_list("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (``)") == ("",)


# ---- DO_TABLE / IGNORE_TABLE elements --------------------------------------------------------------


def test_table_list_refuses_an_unqualified_name() -> None:
    assert error_of("CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (t1)") == syntax_error(")")


def test_table_list_refuses_a_string() -> None:
    assert error_of("CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = ('db.t')") == syntax_error("'db.t')")


def test_backticked_db_part() -> None:
    """WL#7361 / rpl_multi_source_filter: `db3`.initfilet3 -> db3.initfilet3."""
    rules = only_list("CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (`db3`.initfilet3)")
    assert rules == (ast.QualifiedName("db3", "initfilet3"),)
    assert str(rules[0]) == "db3.initfilet3"


def test_table_part_right_after_the_dot_may_be_a_reserved_word_or_digits() -> None:
    """MySQL's lexer reads the word right after ``ident.`` as a name, never a keyword or number:
    db1.select and db1.123 name tables ``select`` and ``123``. With a space after the dot the
    keyword is a keyword again (1064). replfilter does not check the space before the dot, so
    ``db1 .select`` is accepted where MySQL refuses it (the db side of the rule is not modelled)."""
    rules = only_list("CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (db1.select, db1.123, `d`.from, d.filter)")
    assert rules == (
        ast.QualifiedName("db1", "select"),
        ast.QualifiedName("db1", "123"),
        ast.QualifiedName("d", "from"),
        ast.QualifiedName("d", "filter"),
    )
    assert error_of("CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (db1. select)") == syntax_error("select)")
    assert error_of("CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (db1. 123)") == syntax_error("123)")


def test_three_part_name_is_refused() -> None:
    assert error_of("CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (a.b.c)") == syntax_error(".c)")


def test_db_part_of_65_characters_is_too_long() -> None:
    name = "d" * 65
    assert error_of(f"CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = ({name}.t)") == MySQLError(
        1059, "42000", f"Identifier name '{name}' is too long"
    )


def test_db_part_of_64_characters_is_accepted() -> None:
    name = "d" * 64
    assert only_list(f"CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = ({name}.t)") == (ast.QualifiedName(name, "t"),)


def test_db_part_of_65_multibyte_characters_is_too_long_but_over_192_bytes_is_a_wrong_name() -> None:
    assert error_of("CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (" + "é" * 65 + ".t)").code == 1059
    error = error_of("CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (" + "€" * 65 + ".t)")
    assert (error.code, error.sqlstate) == (1102, "42000")


def test_empty_db_part_is_a_wrong_database_name() -> None:
    assert error_of("CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (``.t)") == MySQLError(
        1102, "42000", "Incorrect database name ''"
    )


def test_db_part_with_trailing_space_is_a_wrong_database_name() -> None:
    assert error_of("CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (`db1 `.t)") == MySQLError(
        1102, "42000", "Incorrect database name 'db1 '"
    )


def test_wrong_database_name_message_is_cut_at_100_characters() -> None:
    """%-.100s in the 1102 text."""
    name = "x" * 150 + " "
    error = error_of(f"CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (`{name}`.t)")
    assert error == MySQLError(1102, "42000", f"Incorrect database name '{'x' * 100}'")


def test_table_part_is_not_checked() -> None:
    rules = only_list("CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (db.`t `, db.``, db.`" + "t" * 70 + "`)")
    assert rules == (ast.QualifiedName("db", "t "), ast.QualifiedName("db", ""), ast.QualifiedName("db", "t" * 70))


# ---- WILD elements ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("keyword", ["REPLICATE_WILD_DO_TABLE", "REPLICATE_WILD_IGNORE_TABLE"])
def test_wild_list_refuses_an_identifier(keyword: str) -> None:
    assert error_of(f"CHANGE REPLICATION FILTER {keyword} = (db1.t1)") == syntax_error("db1.t1)")


@pytest.mark.parametrize("keyword", ["REPLICATE_WILD_DO_TABLE", "REPLICATE_WILD_IGNORE_TABLE"])
def test_wild_pattern_without_a_dot(keyword: str) -> None:
    assert error_of(f"CHANGE REPLICATION FILTER {keyword} = ('a.b', 'db%')") == WILD_FORMAT


@pytest.mark.parametrize("pattern", [".", "%.", ".%", "a.b.c", "%.%"])
def test_wild_pattern_needs_only_one_dot_anywhere(pattern: str) -> None:
    assert only_list(f"CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('{pattern}')") == (pattern,)


def test_wild_pattern_in_double_quotes() -> None:
    assert only_list('CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ("db%.t1%")') == ("db%.t1%",)


def test_wild_pattern_keeps_backslash_before_underscore_and_percent() -> None:
    """Spec 9.3: 'db\\_1.%' is stored as db\\_1.%, backslash kept."""
    rules = only_list(r"CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('db\_1.%', 'my\%db.t')")
    assert rules == ("db\\_1.%", "my\\%db.t")


def test_wild_pattern_doubled_backslash_becomes_one() -> None:
    assert only_list(r"CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('a\\b.c')") == ("a\\b.c",)


def test_wild_pattern_refuses_charset_introducer_and_literal_concatenation() -> None:
    assert error_of("CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = (_utf8mb4'a.b')") == syntax_error(
        "_utf8mb4'a.b')"
    )
    assert error_of("CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('a' '.b')") == syntax_error("'.b')")


def test_mysql_string_escapes() -> None:
    rules = only_list(
        r"CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ("
        r"'\t\0\Z\b\r.x', 'it''s.x', 'it\'s.x', "
        r""" "a""b.c", "a\"b.c", '\x\y.z', '"q".t', "'q'.t")"""
    )
    assert rules == ("\t\0\x1a\b\r.x", "it's.x", "it's.x", 'a"b.c', 'a"b.c', "xy.z", '"q".t', "'q'.t")


def test_linefeed_in_a_wild_pattern_escape() -> None:
    error = error_of(r"CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('a\nb')")
    assert error == lf_error("a\nb")


def test_raw_linefeed_in_a_wild_pattern() -> None:
    error = error_of("CHANGE REPLICATION FILTER REPLICATE_WILD_IGNORE_TABLE = ('a.\nb')")
    assert error == lf_error("a.\nb")


def test_linefeed_error_value_is_cut_at_128_characters() -> None:
    """ER_WRONG_VALUE is "Incorrect %-.32s value: '%-.128s'"."""
    value = "a\n" + "b" * 200 + ".c"
    error = error_of(f"CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('{value}')")
    assert error == lf_error(value[:128])


def test_linefeed_check_comes_before_the_dot_check() -> None:
    assert error_of(r"CHANGE REPLICATION FILTER REPLICATE_WILD_DO_TABLE = ('a\nb')").code == 1525


# ---- REWRITE elements --------------------------------------------------------------------------------------


def test_rewrite_pairs() -> None:
    assert only_list("CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((a,b))") == (("a", "b"),)
    assert only_list("CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((a,b),(c,d))") == (("a", "b"), ("c", "d"))
    assert only_list("CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((`a,b`,`(c)`))") == (("a,b", "(c)"),)


def test_rewrite_pair_must_be_parenthesised() -> None:
    assert error_of("CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = (a,b)") == syntax_error("a,b)")


def test_rewrite_arrow_form_is_only_for_startup_options() -> None:
    assert error_of("CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = (a->b)") == syntax_error("a->b)")
    assert error_of("CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((a->b))") == syntax_error("->b))")


def test_rewrite_pair_of_three_is_refused() -> None:
    assert error_of("CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((a,b,c))") == syntax_error(",c))")


# ---- repeated type, duplicated elements ----------------------------------------------------------------------


def test_same_type_twice_last_list_wins() -> None:
    """Spec 2.3 / rpl_multi_source_filter step 11."""
    statement = filters_of(
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB=(db2,`db32`,`db,3`), "
        "REPLICATE_DO_DB=(db1,my_db3,my_db4), Replicate_Ignore_DB=(my_initfiledb3) FOR CHANNEL 'channel_1'"
    )
    assert statement.effective() == {DO_DB: ("db1", "my_db3", "my_db4"), IGNORE_DB: ("my_initfiledb3",)}
    statement = filters_of("CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB=(dbC), REPLICATE_IGNORE_DB=(dbD)")
    assert statement.effective() == {IGNORE_DB: ("dbD",)}


def test_same_type_twice_last_empty_list_wins() -> None:
    statement = filters_of("CHANGE REPLICATION FILTER REPLICATE_DO_DB=(a), REPLICATE_DO_DB=()")
    assert statement.effective() == {DO_DB: ()}


def test_parser_keeps_duplicates_for_the_executor() -> None:
    """Duplicate policy (spec 2.4) is applied when storing; the AST keeps the list as written."""
    assert only_list("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a,b,a)") == ("a", "b", "a")
    assert len(only_list("CHANGE REPLICATION FILTER REPLICATE_DO_TABLE = (d.t2,d.t1,d.t2)")) == 3


# ---- FOR CHANNEL --------------------------------------------------------------------------------------------


def test_channel_in_single_quotes() -> None:
    assert filters_of("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a) FOR CHANNEL 'ch_1'").channel == "ch_1"


def test_channel_in_double_quotes() -> None:
    assert filters_of('CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a) FOR CHANNEL "ch_1"').channel == "ch_1"


def test_channel_in_backticks_is_a_syntax_error() -> None:
    assert error_of("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a) FOR CHANNEL `ch_1`") == syntax_error("`ch_1`")


def test_bare_channel_name_is_a_syntax_error() -> None:
    """The manual's own example `FOR CHANNEL channel_1` does not parse: the name must be a string."""
    assert error_of("CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB=() FOR CHANNEL channel_1") == syntax_error(
        "channel_1"
    )


def test_channel_name_is_lower_cased() -> None:
    assert filters_of("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a) FOR CHANNEL 'Channel_1'").channel == "channel_1"
    assert parse_statement("SHOW REPLICA STATUS FOR CHANNEL 'CH'") == ast.ShowReplicaStatus("ch")
    assert parse_statement("RESET REPLICA FOR CHANNEL 'Ch'") == ast.ResetReplica(False, "ch")
    assert parse_statement("START REPLICA FOR CHANNEL 'ÉTÉ'") == ast.StartReplica((), "été")


def test_channel_name_escapes_are_processed() -> None:
    assert filters_of(r"CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a) FOR CHANNEL 'A\tB'").channel == "a\tb"
    assert filters_of("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a) FOR CHANNEL 'it''s'").channel == "it's"


def test_empty_channel_is_not_the_same_as_no_clause() -> None:
    assert filters_of("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a) FOR CHANNEL ''").channel == ""
    assert filters_of("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a)").channel is None


@pytest.mark.parametrize(
    "statement",
    [
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a) FOR CHANNEL {c}",
        "SHOW REPLICA STATUS FOR CHANNEL {c}",
        "RESET REPLICA ALL FOR CHANNEL {c}",
        "START REPLICA FOR CHANNEL {c}",
        "STOP REPLICA SQL_THREAD FOR CHANNEL {c}",
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h' FOR CHANNEL {c}",
    ],
)
def test_linefeed_in_a_channel_name(statement: str) -> None:
    assert error_of(statement.format(c=r"'a\nb'")) == lf_error("a\nb")
    assert error_of(statement.format(c="'a\nb'")) == lf_error("a\nb")


def test_channel_name_is_not_length_checked_by_the_parser() -> None:
    assert len(parse_statement(f"SHOW REPLICA STATUS FOR CHANNEL '{'c' * 300}'").channel) == 300  # type: ignore[union-attr]


def test_channel_clause_twice_is_a_syntax_error() -> None:
    assert error_of("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a) FOR CHANNEL 'x' FOR CHANNEL 'y'") == syntax_error(
        "FOR CHANNEL 'y'"
    )


def test_channel_string_refuses_concatenation() -> None:
    assert error_of("SHOW REPLICA STATUS FOR CHANNEL 'x' 'y'") == syntax_error("'y'")


# ---- comments ----------------------------------------------------------------------------------------------


def test_comments_are_ignored() -> None:
    text = (
        "CHANGE /* block ; comment */ REPLICATION # hash comment ;\n"
        "FILTER -- dash comment ;\n"
        "REPLICATE_DO_DB = (/**/db1/*x*/) -- trailing"
    )
    assert parse_statement(text) == ast.ChangeReplicationFilter((ast.FilterDef(DO_DB, ("db1",)),))


def test_double_dash_without_a_space_is_not_a_comment() -> None:
    assert error_of("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a) --x").code == 1064


def test_comment_only_statement_is_empty() -> None:
    assert error_of("-- nothing here") == MySQLError(1065, "42000", "Query was empty")
    assert error_of("/* nothing */") == MySQLError(1065, "42000", "Query was empty")


def test_unterminated_block_comment_is_a_syntax_error() -> None:
    assert error_of("SHOW WARNINGS /* open").code == 1064


# ---- legacy SLAVE / MASTER spellings ---------------------------------------------------------------------------


def test_replica_and_slave_spellings() -> None:
    """8.0 reads both spellings (SLAVE marks the statement legacy)."""
    assert parse_statement("START SLAVE", V80) == ast.StartReplica((), None, legacy=True)
    assert parse_statement("START REPLICA") == ast.StartReplica((), None, legacy=False)
    assert parse_statement("stop slave io_thread for channel 'C'", V80) == ast.StopReplica(("IO_THREAD",), "c", True)
    assert parse_statement("RESET SLAVE ALL FOR CHANNEL ''", V80) == ast.ResetReplica(True, "", True)
    assert parse_statement("RESET REPLICA") == ast.ResetReplica(False, None, False)
    assert parse_statement("SHOW SLAVE STATUS", V80) == ast.ShowReplicaStatus(None, True)
    assert parse_statement("SHOW REPLICA STATUS FOR CHANNEL 'x'") == ast.ShowReplicaStatus("x", False)


def test_thread_types() -> None:
    assert parse_statement("START REPLICA SQL_THREAD") == ast.StartReplica(("SQL_THREAD",))
    assert parse_statement("START REPLICA IO_THREAD, SQL_THREAD") == ast.StartReplica(("IO_THREAD", "SQL_THREAD"))
    assert parse_statement("STOP REPLICA RELAY_THREAD") == ast.StopReplica(("IO_THREAD",))
    assert error_of("START REPLICA SQL_THREAD IO_THREAD") == syntax_error("IO_THREAD")


def test_change_master_and_change_replication_source() -> None:
    legacy = parse_statement("CHANGE MASTER TO MASTER_HOST = 'h', MASTER_PORT = 3307 FOR CHANNEL 'C1'", V80)
    assert legacy == ast.ChangeReplicationSource(
        (ast.SourceOption("SOURCE_HOST", "h", "MASTER_HOST"), ast.SourceOption("SOURCE_PORT", 3307, "MASTER_PORT")),
        "c1",
        legacy=True,
    )
    current = parse_statement(
        "change replication source to source_host='h', source_user='u', source_log_file='b.000001', source_log_pos=4"
    )
    assert current == ast.ChangeReplicationSource(
        (
            ast.SourceOption("SOURCE_HOST", "h", "SOURCE_HOST"),
            ast.SourceOption("SOURCE_USER", "u", "SOURCE_USER"),
            ast.SourceOption("SOURCE_LOG_FILE", "b.000001", "SOURCE_LOG_FILE"),
            ast.SourceOption("SOURCE_LOG_POS", 4, "SOURCE_LOG_POS"),
        )
    )


def test_change_source_refuses_unknown_options_and_wrong_value_kinds() -> None:
    assert error_of("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h', SOURCE_FOO=1") == syntax_error("SOURCE_FOO=1")
    assert error_of("CHANGE REPLICATION SOURCE TO SOURCE_PORT='3306'") == syntax_error("SOURCE_PORT='3306'")
    assert error_of("CHANGE REPLICATION SOURCE TO SOURCE_HOST=3306").code == 1064
    assert error_of("CHANGE REPLICATION SOURCE TO").code == 1064


def test_unsupported_statements_are_syntax_errors() -> None:
    assert error_of("START REPLICA FOR CHANNEL 'c' UNTIL SQL_AFTER_MTS_GAPS") == syntax_error("UNTIL SQL_AFTER_MTS_GAPS")
    assert error_of("RESET REPLICA ALL ALL") == syntax_error("ALL")
    assert error_of("CHANGE REPLICATION FILTERS REPLICATE_DO_DB=(a)") == syntax_error("FILTERS REPLICATE_DO_DB=(a)")


# ---- SELECT forms and SHOW WARNINGS ------------------------------------------------------------------------------


def test_select_star() -> None:
    assert parse_statement("SELECT * FROM performance_schema.replication_applier_filters") == ast.SelectPerformanceSchema(
        "performance_schema", "replication_applier_filters"
    )


def test_select_columns_where_order_limit() -> None:
    statement = parse_statement(
        "select channel_name, FILTER_RULE from PERFORMANCE_SCHEMA . replication_applier_filters "
        "where CHANNEL_NAME = 'ch_1' and filter_name != \"REPLICATE_DO_DB\" AND COUNTER <> 0 "
        "order by CHANNEL_NAME desc, filter_name ASC limit 5"
    )
    assert statement == ast.SelectPerformanceSchema(
        schema="PERFORMANCE_SCHEMA",
        table="replication_applier_filters",
        columns=("channel_name", "FILTER_RULE"),
        where=(
            ast.Comparison("CHANNEL_NAME", "=", "ch_1"),
            ast.Comparison("filter_name", "<>", "REPLICATE_DO_DB"),
            ast.Comparison("COUNTER", "<>", 0),
        ),
        order_by=(ast.OrderItem("CHANNEL_NAME", True), ast.OrderItem("filter_name", False)),
        limit=5,
    )


def test_select_count_star() -> None:
    statement = parse_statement("SELECT COUNT(*) FROM performance_schema.replication_applier_global_filters")
    assert statement == ast.SelectPerformanceSchema(
        "performance_schema", "replication_applier_global_filters", None, count=True
    )


def test_select_without_schema() -> None:
    statement = parse_statement("SELECT * FROM replication_applier_filters")
    assert statement == ast.SelectPerformanceSchema(None, "replication_applier_filters")


def test_select_with_backticked_names() -> None:
    statement = parse_statement("SELECT `FILTER_RULE` FROM `performance_schema`.`replication_applier_filters`")
    assert statement == ast.SelectPerformanceSchema("performance_schema", "replication_applier_filters", ("FILTER_RULE",))


def test_select_where_beyond_the_dialect_is_a_query_for_sqlglot_not_a_syntax_error() -> None:
    for text in ["SELECT * FROM performance_schema.replication_applier_filters WHERE 1 = 1",
                 "SELECT * FROM performance_schema.replication_applier_filters WHERE COUNTER > 0",
                 "SELECT FILTER_NAME AS f, COUNT(*) AS n FROM performance_schema.replication_applier_filters GROUP BY FILTER_NAME"]:
        assert parse_statement(text) == ast.QueryPerformanceSchema(text)
    assert error_of("SELECT * FROM performance_schema.replication_applier_filters WHERE").code == 1064


def test_show_warnings() -> None:
    assert parse_statement("SHOW WARNINGS") == ast.ShowWarnings()
    assert parse_statement("show count(*) warnings") == ast.ShowWarnings(count_only=True)


# ---- the exact 1064 text -------------------------------------------------------------------------------------------


def test_syntax_error_at_the_end_of_the_statement() -> None:
    assert error_of("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a") == syntax_error("")


def test_syntax_error_near_text_is_the_rest_of_the_statement() -> None:
    assert error_of("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a) FOR CHANNEL 'x' garbage here") == syntax_error(
        "garbage here"
    )


def test_syntax_error_near_text_is_cut_at_80_characters() -> None:
    """ER_PARSE_ERROR: near '%-.80s'."""
    tail = "x" * 200
    assert error_of(f"SHOW WARNINGS {tail}") == syntax_error("x" * 80)


def test_syntax_error_line_number_of_a_multi_line_statement() -> None:
    text = "CHANGE REPLICATION FILTER\n  REPLICATE_DO_DB = (db1),\n  REPLICATE_DO_TABLE = (t1)\n  FOR CHANNEL 'c'"
    assert error_of(text) == syntax_error(")\n  FOR CHANNEL 'c'", line=3)


def test_syntax_error_at_the_end_of_a_multi_line_statement() -> None:
    assert error_of("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a),\n  REPLICATE_DO_DB = (b") == syntax_error(
        "", line=2
    )


def test_syntax_error_line_counts_lines_inside_comments_and_strings() -> None:
    text = "SHOW /* one\ntwo */ REPLICA\nSTATUS oops"
    assert error_of(text) == syntax_error("oops", line=3)
    text = "SELECT * FROM performance_schema.replication_applier_filters WHERE CHANNEL_NAME = 'a\nb' oops"
    assert error_of(text) == syntax_error("oops", line=2)


def test_keywords_are_whole_words() -> None:
    """A keyword is not the start of a longer word: MySQL lexes FILTERS or SHOWWARNINGS as one
    identifier, so these are syntax errors near that word."""
    assert error_of("CHANGE REPLICATION FILTERS REPLICATE_DO_DB=(a)") == syntax_error("FILTERS REPLICATE_DO_DB=(a)")
    assert error_of("SHOWWARNINGS") == syntax_error("SHOWWARNINGS")
    assert error_of("RESET REPLICAALL") == syntax_error("REPLICAALL")
    assert error_of("CHANGE REPLICATIONFILTER REPLICATE_DO_DB=(a)") == syntax_error("REPLICATIONFILTER REPLICATE_DO_DB=(a)")
    assert filters_of("CHANGE REPLICATION FILTER REPLICATE_DO_DB=(a)FOR CHANNEL'x'").channel == "x"
    assert error_of("START REPLICA SQL_THREADS") == syntax_error("SQL_THREADS")
    assert parse_statement("SELECT COUNT(*) FROM performance_schema.replication_applier_filters").count  # type: ignore[union-attr]
    assert parse_statement(
        "SELECT count, counter FROM performance_schema.replication_applier_filters ORDER BY count"
    ) == ast.SelectPerformanceSchema(
        "performance_schema", "replication_applier_filters", ("count", "counter"), order_by=(ast.OrderItem("count"),)
    )


def test_syntax_error_of_an_unknown_statement() -> None:
    assert error_of("FLUSHING LOGS") == syntax_error("FLUSHING LOGS")
    assert error_of("select 1 +") == syntax_error("1 +")


NOT_SIMULATED = (
    "This version of MySQL doesn't yet support '{kind} statements other than those of the replication "
    "filter dialect in replfilter (it does not simulate them)'"
)


@pytest.mark.parametrize("text", [
    "select 1", "SHOW VARIABLES LIKE 'server%'", "SET @x = 1", "SELECT @x := 1",
    "SELECT * FROM mysql.user WHERE user > 'a'", "CREATE TABLE t (a INT)", "INSERT INTO t VALUES (1)",
    # administrative statements sqlglot cannot read (admin_statements.lark)
    "FLUSH LOGS", "flush local binary logs, relay logs for channel c1", "FLUSH TABLES t1, d.t2 WITH READ LOCK",
    "FLUSH TABLES t FOR EXPORT", "LOCK TABLES t READ LOCAL, u AS x WRITE", "LOCK INSTANCE FOR BACKUP",
    "UNLOCK TABLES", "CALL p", "CALL d.p(1, 'a', @x)", "CHECK TABLE t FOR UPGRADE", "CHECKSUM TABLE t QUICK",
    "REPAIR NO_WRITE_TO_BINLOG TABLE t USE_FRM", "OPTIMIZE TABLE t", "PURGE BINARY LOGS TO 'b.000003'",
    "PURGE BINARY LOGS BEFORE NOW() - INTERVAL 3 DAY", "SAVEPOINT a", "RELEASE SAVEPOINT a",
    "PREPARE s FROM 'SELECT 1'", "EXECUTE s USING @a, @b", "DEALLOCATE PREPARE s", "RENAME TABLE a TO b, c TO d",
    "DO 1, SLEEP(2)", "KILL QUERY 3",
])
def test_ordinary_mysql_statements_are_1235_not_1064(text: str) -> None:
    """A 1064 means the text is not MySQL: a MySQL statement replfilter does not simulate is 1235."""
    kind = text.split()[0].upper()
    assert error_of(text) == MySQLError(1235, "42000", NOT_SIMULATED.format(kind=kind))


@pytest.mark.parametrize("text", [
    "SHOW REPLICA STATUS FOR CHANNEL", "SHOW WARNINGZ", "START SLAVE", "CHANGE MASTER TO MASTER_HOST = 'h'",
    "\u017fELECT 1", "foo bar", "RESET REPLICA ALL ALL",
    "FLUSH", "FLUSH LOGZ", "FLUSH TABLES FOR EXPORT", "LOCK TABLES t", "LOCK TABLES select READ", "CALL",
    "CALL select", "CALL p(1 2)", "DO", "PURGE MASTER LOGS TO 'b.1'", "RENAME TABLE a b",
])
def test_broken_dialect_statements_stay_syntax_errors(text: str) -> None:
    assert error_of(text).code == 1064


def test_unterminated_string_is_a_syntax_error_near_the_quote() -> None:
    assert error_of("SHOW REPLICA STATUS FOR CHANNEL 'abc") == syntax_error("'abc")


def test_two_statements_in_one_text_are_a_syntax_error_near_the_second() -> None:
    """Without multi-statement support the server stops at the second statement: the near text
    starts there (a ``;`` inside a quoted name does not count)."""
    assert error_of("SHOW WARNINGS; SHOW WARNINGS") == syntax_error("SHOW WARNINGS")
    assert error_of("SHOW REPLICA STATUS FOR CHANNEL 'a;b'; SHOW WARNINGS") == syntax_error("SHOW WARNINGS")



@pytest.mark.parametrize("version", list(ServerVersion))
def test_errors_that_lex_the_text_build_no_lexer_per_statement(version: ServerVersion, monkeypatch) -> None:
    """The near text of a second statement, and 8.0's parse-time warnings, lex the text with
    the grammar's lexer built once per version (Lark's own ``lex`` builds one for each text)."""
    from lark import Lark

    texts = ["SHOW WARNINGS; -- ;\n SHOW WARNINGS", "CHANGE MASTER TO MASTER_HOST = 'h' junk",
             "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (a); SHOW WARNINGS"]
    first = [error_of_version(text, version) for text in texts]
    built = []
    build = Lark._build_lexer
    monkeypatch.setattr(Lark, "_build_lexer", lambda *args, **kwargs: built.append(args) or build(*args, **kwargs))
    assert [error_of_version(text, version) for text in texts] == first
    assert not built
    assert first[0][1] == syntax_error("SHOW WARNINGS", line=2).message


def error_of_version(text: str, version: ServerVersion) -> tuple[int, str, tuple[str, ...]]:
    with pytest.raises(MySQLError) as caught:
        parse_statement(text, version)
    return caught.value.code, caught.value.message, tuple(w.message for w in caught.value.warnings)


def test_trailing_semicolon_is_accepted() -> None:
    assert parse_statement("SHOW WARNINGS;") == ast.ShowWarnings()


def test_parse_of_a_script() -> None:
    statements = parse("SHOW WARNINGS;\nRESET REPLICA;\n-- done\n")
    assert statements == [ast.ShowWarnings(), ast.ResetReplica()]


# ---- the splitter ---------------------------------------------------------------------------------------------------


def texts(script: str) -> list[str]:
    return [item.text for item in split_statements(script) if isinstance(item, StatementText)]


def test_splitter_semicolons_inside_quotes_and_comments() -> None:
    script = (
        "SHOW REPLICA STATUS FOR CHANNEL 'a;b';"
        ' SHOW REPLICA STATUS FOR CHANNEL "c;d";'
        " CHANGE REPLICATION FILTER REPLICATE_DO_DB = (`e;f`);"
        " SHOW /* ; */ WARNINGS;\n"
        "SHOW WARNINGS -- ; not the end\n;\n"
        "SHOW WARNINGS # ; not the end\n;"
    )
    assert texts(script) == [
        "SHOW REPLICA STATUS FOR CHANNEL 'a;b'",
        'SHOW REPLICA STATUS FOR CHANNEL "c;d"',
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (`e;f`)",
        "SHOW  WARNINGS",
        "SHOW WARNINGS",
        "SHOW WARNINGS",
    ]


def test_splitter_leaves_comments_out_as_mysql_does() -> None:
    """mysql (default --skip-comments) does not send comments; /*! and /*+ are kept."""
    assert texts("SHOW/* c */WARNINGS;") == ["SHOW WARNINGS"]
    assert texts("SHOW /*!40101 x */ WARNINGS;") == ["SHOW /*!40101 x */ WARNINGS"]
    assert texts("SHOW WARNINGS; -- trailing comment\n# another\n/* and\nanother */") == ["SHOW WARNINGS"]
    assert texts("SHOW 'a -- b' WARNINGS;") == ["SHOW 'a -- b' WARNINGS"]


def test_splitter_comment_only_input_sends_nothing() -> None:
    assert split_statements("-- nothing\n# here\n/* at\nall */\n") == []
    # a delimiter on an empty buffer is an empty query: the shell says "No query specified",
    # scripts ignore it (com_go, interactive vs batch)
    assert split_statements("-- x;\n;") == [StatementText("", 2)]
    assert [i for i in split_statements("SHOW WARNINGS;;") if isinstance(i, StatementText)] == [
        StatementText("SHOW WARNINGS", 1), StatementText("", 1)]


def test_splitter_escaped_and_doubled_quotes() -> None:
    assert texts(r"SELECT 'it''s;' ; SELECT 'a\';b'; SELECT 'c\\'; x") == [
        "SELECT 'it''s;'",
        r"SELECT 'a\';b'",
        r"SELECT 'c\\'",
        "x",
    ]


def test_splitter_double_dash_needs_a_space() -> None:
    assert texts("a--x;b") == ["a--x", "b"]
    assert texts("a --\nb;") == ["a \nb"]


def test_splitter_string_spanning_lines() -> None:
    assert split_statements("SELECT 'multi\nline;';\nb") == [
        StatementText("SELECT 'multi\nline;'", 1),
        StatementText("b", 3, complete=False),
    ]


def test_splitter_block_comment_spanning_lines() -> None:
    assert texts("SHOW /* ;\n ; */ WARNINGS;") == ["SHOW  WARNINGS"]


def test_splitter_vertical_and_go() -> None:
    assert split_statements("SHOW WARNINGS\\G") == [StatementText("SHOW WARNINGS", 1, vertical=True)]
    assert split_statements("SHOW WARNINGS\\g SHOW WARNINGS;") == [
        StatementText("SHOW WARNINGS", 1),
        StatementText("SHOW WARNINGS", 1),
    ]
    assert split_statements("SHOW REPLICA STATUS FOR CHANNEL 'x\\G'\\G") == [
        StatementText("SHOW REPLICA STATUS FOR CHANNEL 'x\\G'", 1, vertical=True)
    ]


def test_splitter_go_on_an_empty_buffer_is_reported() -> None:
    """``\\g`` alone is mysql's "No query specified": the splitter hands an empty statement over."""
    assert split_statements("\\g") == [StatementText("", 1)]


def test_splitter_clear() -> None:
    assert split_statements("CHANGE REPLICATION FILTER\\c\nSHOW WARNINGS;") == [StatementText("SHOW WARNINGS", 2)]
    assert split_statements("SHOW 'x\\c';") == [StatementText("SHOW 'x\\c'", 1)]


def test_splitter_client_commands() -> None:
    script = "source f.sql\nSHOW WARNINGS;\n\\. other.sql\nSOURCE g.sql;\nquit"
    assert split_statements(script) == [
        ClientCommand("source", "f.sql", 1),
        StatementText("SHOW WARNINGS", 2),
        ClientCommand("source", "other.sql", 3),
        ClientCommand("source", "g.sql", 4),
        ClientCommand("quit", "", 5),
    ]
    assert split_statements("exit") == [ClientCommand("quit", "", 1)]
    assert split_statements("\\q") == [ClientCommand("quit", "", 1)]


def test_splitter_word_command_only_at_the_start_of_a_statement() -> None:
    assert split_statements("SHOW WARNINGS; source x.sql") == [
        StatementText("SHOW WARNINGS", 1),
        StatementText("source x.sql", 1, complete=False),
    ]
    assert split_statements("SHOW\nquit;") == [StatementText("SHOW\nquit", 1)]


def test_splitter_command_without_arguments_followed_by_words_is_a_statement() -> None:
    assert split_statements("status of x;") == [StatementText("status of x", 1)]


def test_splitter_line_numbers() -> None:
    """A statement's line is mysql's query_start_line: the last line read while the buffer was
    empty, so comment-only and blank lines before it do not count."""
    script = "\n-- comment\nSHOW\nWARNINGS\n;\n\n  SHOW WARNINGS; SHOW\nREPLICA STATUS;\nSHOW WARNINGS"
    assert split_statements(script) == [
        StatementText("SHOW\nWARNINGS", 3),
        StatementText("SHOW WARNINGS", 7),
        StatementText("SHOW\nREPLICA STATUS", 7),
        StatementText("SHOW WARNINGS", 9, complete=False),
    ]


def test_splitter_line_of_a_statement_that_starts_after_a_semicolon() -> None:
    """mysql only moves query_start_line when it reads a line with an empty buffer, so a statement
    starting after the ';' of a multi-line statement reports that statement's first line."""
    assert split_statements("SHOW\nWARNINGS; SHOW oops;") == [
        StatementText("SHOW\nWARNINGS", 1),
        StatementText("SHOW oops", 1),
    ]


def test_splitter_line_after_a_block_comment() -> None:
    assert split_statements("/* header\n   comment */\nSHOW oops;") == [StatementText("SHOW oops", 3)]


def test_splitter_empty_statements_are_handed_over_empty() -> None:
    """Each delimiter on an empty buffer is an empty query (the caller reports or ignores it)."""
    assert split_statements(";;;\n;") == [StatementText("", 1)] * 3 + [StatementText("", 2)]
    assert split_statements("") == []


def test_splitter_statement_buffer_fed_line_by_line() -> None:
    buffer = StatementBuffer()
    assert buffer.feed_line("CHANGE REPLICATION FILTER") == []
    assert buffer.in_progress
    assert buffer.feed_line("REPLICATE_DO_DB = ('a;") == []
    assert buffer.feed_line("b');") == [StatementText("CHANGE REPLICATION FILTER\nREPLICATE_DO_DB = ('a;\nb')", 1)]
    assert not buffer.in_progress
    assert buffer.finish() == []


def test_splitter_output_parses() -> None:
    script = "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (`a;b`) FOR CHANNEL 'c;d'; -- x\nSHOW WARNINGS\\G"
    statements = [parse_statement(item.text) for item in split_statements(script) if isinstance(item, StatementText)]
    assert statements == [
        ast.ChangeReplicationFilter((ast.FilterDef(DO_DB, ("a;b",)),), "c;d"),
        ast.ShowWarnings(),
    ]


@pytest.mark.parametrize("number", ["1e5", "0x1F", "0b01", "123"])
def test_a_number_is_not_a_database_name(number: str) -> None:
    """MySQL's lexer reads 1e5, 0x1F and 0b01 as numbers, so they cannot name a database."""
    with pytest.raises(MySQLError) as caught:
        parse_statement(f"CHANGE REPLICATION FILTER REPLICATE_DO_DB = ({number})")
    assert caught.value.code == 1064


@pytest.mark.parametrize("name", ["1ea", "0x1G", "123abc", "0b012"])
def test_a_name_may_start_with_digits(name: str) -> None:
    statement = parse_statement(f"CHANGE REPLICATION FILTER REPLICATE_DO_DB = ({name})")
    assert statement.filters[0].rules == (name,)  # type: ignore[union-attr]


def test_unknown_backslash_command_is_reported_and_kept_in_the_statement() -> None:
    """mysql prints "Unknown command '\\k'." and leaves both characters in the statement."""
    items = split_statements("SHOW \\k WARNINGS;")
    assert items == [ClientCommand("unknown", "\\k", 1), StatementText("SHOW \\k WARNINGS", 1)]
    assert split_statements("SELECT '\\k' ;") == [StatementText("SELECT '\\k'", 1)]


# ---- the delimiter command (mysql's com_delimiter / add_line) ---------------------------------


def test_delimiter_command_changes_where_statements_end() -> None:
    script = "DELIMITER //\nSHOW WARNINGS; SHOW ERRORS//\ndelimiter ;\nSHOW WARNINGS;"
    assert split_statements(script) == [
        ClientCommand("delimiter", " //", 1),
        StatementText("SHOW WARNINGS; SHOW ERRORS", 2),  # ';' is text now: sent as one statement
        ClientCommand("delimiter", " ;", 3),
        StatementText("SHOW WARNINGS", 4),
    ]


def test_delimiter_is_not_seen_in_quotes_or_comments_and_may_be_a_word() -> None:
    script = "delimiter $$\nSHOW '$$' /* $$ */ WARNINGS$$ -- $$\ndelimiter 'end'\nSHOW WARNINGSend\nquitend"
    assert split_statements(script) == [
        ClientCommand("delimiter", " $$", 1),
        StatementText("SHOW '$$'  WARNINGS", 2),
        ClientCommand("delimiter", " 'end'", 3),
        StatementText("SHOW WARNINGS", 4),
        ClientCommand("quit", "", 5),
    ]


def test_backslash_d_applies_at_once_and_skips_to_its_delimiter() -> None:
    assert split_statements("SHOW WARNINGS; \\d // SHOW ERRORS// SHOW WARNINGS//") == [
        StatementText("SHOW WARNINGS", 1),
        ClientCommand("delimiter", " // SHOW ERRORS// SHOW WARNINGS//", 1),
        StatementText("SHOW ERRORS", 1),
        StatementText("SHOW WARNINGS", 1),
    ]


@pytest.mark.parametrize(
    ("argument", "expected"),
    [
        (" //", ("//", None)),
        (" // trailing words", ("//", None)),
        (" 'a b'", ("a b", None)),
        (' "it""s"', ('it"s', None)),
        (" a\\b", ("ab", None)),  # a backslash keeps the next character
        (" 1234567890abcdefgh", ("1234567890abcde", None)),  # mysql's 16-byte buffer
        ("", (None, "DELIMITER must be followed by a 'delimiter' character or string")),
        (" ''", (None, "DELIMITER must be followed by a 'delimiter' character or string")),
        (" \\\\", (None, "DELIMITER cannot contain a backslash character")),
        (" \\", (None, "DELIMITER cannot contain a backslash character")),
    ],
)
def test_delimiter_argument_as_mysql_reads_it(argument, expected) -> None:
    from replfilter.dialect.splitter import parse_delimiter

    assert parse_delimiter(argument) == expected


def test_a_refused_delimiter_keeps_the_old_one() -> None:
    buffer = StatementBuffer()
    assert buffer.feed_line("delimiter //") == [ClientCommand("delimiter", " //", 1)]
    buffer.feed_line("delimiter \\\\")
    buffer.feed_line("delimiter ''")
    assert buffer.delimiter == "//"
    assert buffer.feed_line("SHOW WARNINGS//") == [StatementText("SHOW WARNINGS", 4)]


def test_delimiter_glued_to_its_argument_is_no_command() -> None:
    """mysql's find_command takes ``delimiter;`` as one word: with ``;`` the statement
    ``delimiter`` reaches the command without an argument (refused); with ``//`` it is text."""
    assert split_statements("delimiter;") == [ClientCommand("delimiter", "", 1)]
    assert split_statements("delimiter //\ndelimiter;\nSHOW WARNINGS//")[1:] == [
        StatementText("delimiter;\nSHOW WARNINGS", 2)
    ]


# ---- one grammar loader ----------------------------------------------------------------------------


def test_grammar_loader_keywords_are_the_lark_terminals():
    """The keyword list read from the grammar's text (what the shell highlights before Lark is
    loaded) is exactly the set of keyword terminals Lark builds, and so is the non-reserved set."""
    from replfilter.dialect import grammar

    lark = grammar.plain_parser()
    terminals = {t.name for t in lark.terminals if t.name in str(t.pattern.value).upper()}
    nonreserved = {s.name for r in lark.rules if r.origin.name == "nonreserved" for s in r.expansion}
    assert grammar.keywords() == terminals
    assert grammar.nonreserved_keywords() == nonreserved
    assert {"CHANGE", "REPLICATE_DO_DB", "SELECT"} <= grammar.keywords()


def test_grammar_file_is_read_in_one_module_only():
    """Only replfilter/dialect/grammar.py names the .lark file or builds a Lark object."""
    from pathlib import Path

    import replfilter

    root = Path(replfilter.__file__).parent
    offenders = [
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if path.name != "grammar.py" and ("replfilter.lark" in path.read_text() or "Lark(" in path.read_text())
    ]
    assert offenders == []


# ---- keywords are ASCII (MySQL's lexer folds ASCII letters only) -----------------------------------


@pytest.mark.parametrize(
    "text, near",
    [
        ("CHANGE REPLICATION FILTER REPL\u0130CATE_DO_DB = (d)", "REPL\u0130CATE_DO_DB = (d)"),
        ("CHANGE REPLICATION FILTER REPL\u0131CATE_DO_DB = (d)", "REPL\u0131CATE_DO_DB = (d)"),
        ("SHOW REPL\u0130CA STATUS", "REPL\u0130CA STATUS"),
        ("\u017fHOW REPLICA STATUS", "\u017fHOW REPLICA STATUS"),
        ("SHOW REPLICA STATUS FOR CHANNEL 'x' \u212a", "\u212a"),
        ("CHANGE REPLICATION SOURCE TO SOURCE_HO\u017fT = 'h'", "SOURCE_HO\u017fT = 'h'"),
    ],
)
def test_non_ascii_lookalike_letters_do_not_make_keywords(text: str, near: str) -> None:
    assert error_of(text) == syntax_error(near)


def test_a_name_that_upper_cases_to_a_reserved_word_is_a_name() -> None:
    """``ſelect`` upper-cases to SELECT in Unicode but not in MySQL's lexer: a plain name."""
    statement = parse_statement("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (\u017felect)")
    assert statement == ast.ChangeReplicationFilter((ast.FilterDef(DO_DB, ("\u017felect",)),), None)


# ---- 8.4 removed the SLAVE / MASTER spellings -------------------------------------------------------


@pytest.mark.parametrize(
    "text, near",
    [
        ("START SLAVE", "SLAVE"),
        ("STOP SLAVE SQL_THREAD", "SLAVE SQL_THREAD"),
        ("SHOW SLAVE STATUS FOR CHANNEL 'c'", "SLAVE STATUS FOR CHANNEL 'c'"),
        ("RESET SLAVE ALL", "SLAVE ALL"),
        ("CHANGE MASTER TO MASTER_HOST = 'h'", "MASTER TO MASTER_HOST = 'h'"),
        ("CHANGE MASTER TO SOURCE_HOST = 'h'", "MASTER TO SOURCE_HOST = 'h'"),
        ("CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'h', MASTER_PORT = 1", "MASTER_PORT = 1"),
        ("CHANGE REPLICATION SOURCE TO GET_MASTER_PUBLIC_KEY = 1", "GET_MASTER_PUBLIC_KEY = 1"),
    ],
)
def test_84_refuses_the_removed_spellings(text: str, near: str) -> None:
    """MySQL 8.4.0 removed them from the grammar: 1064 at the word, with no 1287 in front."""
    error = error_of(text)
    assert error == syntax_error(near)
    assert error.warnings == ()
    parse_statement(text, V80)  # 8.0 reads every one of them


def test_splitter_plain_text_fast_path_changes_nothing() -> None:
    """Taking plain text whole (up to the first quote, comment, backslash or delimiter) cuts the
    input exactly as the character-by-character scan does."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from replfilter.dialect import splitter

    pieces = st.sampled_from(["a", "x y", " ", "  ", ";", "'", '"', "`", "\\", "\\g", "\\G", "\\c", "\\q", "#", "-- ", "--",
                              "-", "/*", "*/", "/*!", "/", "\n", "\n\n", "$$", "delimiter $$\n", "quit\n", "é", "\t"])

    @settings(max_examples=300, deadline=None)
    @given(st.lists(pieces, max_size=30))
    def check(parts: list[str]) -> None:
        text = "".join(parts)
        fast = split_statements(text)
        original = splitter._plain_prefix_end
        splitter._plain_prefix_end = lambda line, delimiter: 0
        try:
            slow = split_statements(text)
        finally:
            splitter._plain_prefix_end = original
        assert fast == slow

    check()


# ---- START REPLICA UNTIL / connection options, every CHANGE REPLICATION SOURCE option --------------


@pytest.mark.parametrize(
    "text, until",
    [
        ("START REPLICA UNTIL SOURCE_LOG_FILE = 'b.000002', SOURCE_LOG_POS = 1234",
         ast.UntilCondition("Source", "b.000002", 1234)),
        ("START REPLICA SQL_THREAD UNTIL RELAY_LOG_POS = 4, RELAY_LOG_FILE = 'r.000001'",
         ast.UntilCondition("Relay", "r.000001", 4)),
        ("START REPLICA UNTIL SQL_BEFORE_GTIDS = '3E11FA47-71CA-11E1-9E33-C80AA9429562:11-56'",
         ast.UntilCondition("SQL_BEFORE_GTIDS", gtids="3E11FA47-71CA-11E1-9E33-C80AA9429562:11-56")),
        ("START REPLICA IO_THREAD, SQL_THREAD UNTIL SQL_AFTER_GTIDS = 'u:1-5'", ast.UntilCondition("SQL_AFTER_GTIDS", gtids="u:1-5")),
        ("START REPLICA UNTIL SQL_AFTER_MTS_GAPS", ast.UntilCondition("SQL_AFTER_MTS_GAPS")),
    ],
)
def test_start_replica_until(text: str, until: ast.UntilCondition) -> None:
    assert parse_statement(text).until == until  # type: ignore[union-attr]


def test_start_replica_until_errors() -> None:
    """opt_replica_until: a file and a position of one log, or one GTID set, or the gaps alone;
    1277 for a combination the grammar reads but its action refuses, 1064 for what it cannot read."""
    bad_until = MySQLError(1277, "HY000", "Incorrect parameter or combination of parameters for START REPLICA UNTIL")
    assert error_of("START REPLICA UNTIL SOURCE_LOG_POS = 4") == bad_until
    assert error_of("START REPLICA UNTIL SOURCE_LOG_FILE = 'f', RELAY_LOG_POS = 4") == bad_until
    assert error_of("START REPLICA UNTIL SQL_AFTER_GTIDS = 'u:1', SOURCE_LOG_POS = 4") == syntax_error(", SOURCE_LOG_POS = 4")
    assert error_of("START REPLICA UNTIL SOURCE_LOG_POS = 4, SQL_AFTER_MTS_GAPS") == syntax_error("SQL_AFTER_MTS_GAPS")
    assert error_of("START REPLICA UNTIL SOURCE_LOG_POS = 'x'").code == 1064
    assert error_of("START REPLICA UNTIL MASTER_LOG_FILE = 'f', MASTER_LOG_POS = 4") == syntax_error(
        "MASTER_LOG_FILE = 'f', MASTER_LOG_POS = 4")
    assert parse_statement("START SLAVE UNTIL MASTER_LOG_FILE = 'f', MASTER_LOG_POS = 4", V80).until == (  # type: ignore[union-attr]
        ast.UntilCondition("Source", "f", 4))


def test_start_replica_connection_options_and_the_password_is_never_shown() -> None:
    from replfilter.dialect.printer import to_sql

    statement = parse_statement("START REPLICA USER = 'u' PASSWORD = 'sekret' DEFAULT_AUTH = 'caching_sha2_password' "
                                "PLUGIN_DIR = '/p' FOR CHANNEL 'c'")
    assert isinstance(statement, ast.StartReplica)
    assert (statement.user, statement.password, statement.default_auth, statement.plugin_dir) == (
        "u", "sekret", "caching_sha2_password", "/p")
    assert "sekret" not in repr(statement) and "sekret" not in to_sql(statement)
    assert error_of("START REPLICA SQL_THREAD PASSWORD = 'p'") == MySQLError(
        1687, "HY000", "Setting authentication options is not possible when only the Replica SQL Thread is being started.")
    assert error_of("START REPLICA PASSWORD = 'p' USER = 'u'") == syntax_error("USER = 'u'")


EVERY_84_SOURCE_OPTION = [
    "SOURCE_HOST = 'h'", "SOURCE_USER = 'u'", "SOURCE_PASSWORD = 'p'", "SOURCE_PORT = 3306",
    "PRIVILEGE_CHECKS_USER = 'u'@'h'", "PRIVILEGE_CHECKS_USER = u@localhost", "PRIVILEGE_CHECKS_USER = NULL",
    "PRIVILEGE_CHECKS_USER = 'u'", "REQUIRE_ROW_FORMAT = 1", "REQUIRE_TABLE_PRIMARY_KEY_CHECK = STREAM",
    "REQUIRE_TABLE_PRIMARY_KEY_CHECK = ON", "REQUIRE_TABLE_PRIMARY_KEY_CHECK = OFF", "REQUIRE_TABLE_PRIMARY_KEY_CHECK = GENERATE",
    "ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS = OFF", "ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS = LOCAL",
    "ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS = 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa'",
    "SOURCE_CONNECT_RETRY = 10", "SOURCE_RETRY_COUNT = 3", "SOURCE_DELAY = 0", "SOURCE_HEARTBEAT_PERIOD = 1.5",
    "SOURCE_HEARTBEAT_PERIOD = 30", "SOURCE_LOG_FILE = 'b.1'", "SOURCE_LOG_POS = 4", "SOURCE_AUTO_POSITION = 0",
    "RELAY_LOG_FILE = 'r.1'", "RELAY_LOG_POS = 4", "SOURCE_COMPRESSION_ALGORITHMS = 'zstd'",
    "SOURCE_ZSTD_COMPRESSION_LEVEL = 3", "SOURCE_SSL = 1", "SOURCE_SSL_CA = 'ca'", "SOURCE_SSL_CAPATH = 'p'",
    "SOURCE_SSL_CERT = 'c'", "SOURCE_SSL_CRL = 'c'", "SOURCE_SSL_CRLPATH = 'c'", "SOURCE_SSL_KEY = 'k'",
    "SOURCE_SSL_CIPHER = 'c'", "SOURCE_SSL_VERIFY_SERVER_CERT = 1", "SOURCE_TLS_VERSION = 'TLSv1.3'",
    "SOURCE_TLS_CIPHERSUITES = NULL", "SOURCE_TLS_CIPHERSUITES = 'x'", "SOURCE_PUBLIC_KEY_PATH = 'k'",
    "GET_SOURCE_PUBLIC_KEY = 1", "NETWORK_NAMESPACE = 'n'", "IGNORE_SERVER_IDS = ()", "IGNORE_SERVER_IDS = (1, 2)",
    "SOURCE_BIND = 'eth0'", "SOURCE_CONNECTION_AUTO_FAILOVER = 0", "GTID_ONLY = 0",
]


@pytest.mark.parametrize("option", EVERY_84_SOURCE_OPTION)
def test_every_84_source_option_parses(option: str) -> None:
    """Every option of 8.4's source_def is read (never 1064); those replfilter does not keep are
    refused by the executor with 1235 naming them (test_executor)."""
    statement = parse_statement(f"CHANGE REPLICATION SOURCE TO {option}")
    assert isinstance(statement, ast.ChangeReplicationSource)


@pytest.mark.parametrize("option", [
    "REQUIRE_TABLE_PRIMARY_KEY_CHECK = MAYBE", "ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS = ON", "SOURCE_SSL = 'yes'",
    "SOURCE_HOST = h", "SOURCE_PORT = 1.5", "IGNORE_SERVER_IDS = 1", "SOURCE_SSL_CA = NULL", "NO_SUCH_OPTION = 1",
    "GTID_ONLY = 2", "SOURCE_CONNECTION_AUTO_FAILOVER = 5",
])
def test_source_option_values_of_the_wrong_kind_are_syntax_errors(option: str) -> None:
    assert error_of(f"CHANGE REPLICATION SOURCE TO {option}").code == 1064


# ---- executable comments ------------------------------------------------------------------------


def test_executable_comments_run_up_to_the_simulated_version() -> None:
    """``/*!NNNNN text */`` is statement text when NNNNN <= the server's version (80403 for 8.4,
    80040 for 8.0), a comment otherwise; ``/*! text */`` always runs."""
    assert parse_statement("/*!80000 SHOW WARNINGS */") == ast.ShowWarnings()
    assert parse_statement("SHOW /*!50700 COUNT(*) */ WARNINGS") == ast.ShowWarnings(count_only=True)
    assert parse_statement("/*! SHOW WARNINGS */") == ast.ShowWarnings()
    assert parse_statement("SHOW /*!99999 COUNT(*) */ WARNINGS") == ast.ShowWarnings()
    assert error_of("/*!99999 SHOW WARNINGS */") == MySQLError(1065, "42000", "Query was empty")
    assert parse_statement("/*!80400 SHOW REPLICAS */") == ast.ShowReplicas()
    with pytest.raises(MySQLError) as info:
        parse_statement("/*!80400 SHOW REPLICAS */", V80)
    assert info.value.code == 1065
    # Errors quote the text as written; quotes hide the markers.
    assert error_of("/*!80000 SHOW WARNINGZ */") == syntax_error("WARNINGZ */")
    assert parse_statement("SHOW REPLICA STATUS FOR CHANNEL '/*!99999 x */'") == ast.ShowReplicaStatus("/*!99999 x */")
    assert error_of("/*!80000 SHOW WARNINGS").code == 1064  # never closed
