"""Collation ids of MySQL 8.4 (``SHOW COLLATION``'s ``Id``, ``Charset`` and ``Collation``) for the
character sets a user variable's value is most often in; User var's Info text names them
(``User_var_log_event::pack_info``: ``_csname 0x... COLLATE coll_name``).

Only the ids below are known: the ones a client gets from its connection collation in practice
(utf8mb4, utf8mb3, latin1, ascii, binary and the common Asian and Unicode sets). An id outside
the table is not guessed: the Info text says so (see show_events.py).
"""

from __future__ import annotations

COLLATIONS: dict[int, tuple[str, str]] = {
    1: ("big5", "big5_chinese_ci"),
    8: ("latin1", "latin1_swedish_ci"),
    9: ("latin2", "latin2_general_ci"),
    11: ("ascii", "ascii_general_ci"),
    12: ("ujis", "ujis_japanese_ci"),
    13: ("sjis", "sjis_japanese_ci"),
    19: ("euckr", "euckr_korean_ci"),
    24: ("gb2312", "gb2312_chinese_ci"),
    28: ("gbk", "gbk_chinese_ci"),
    33: ("utf8mb3", "utf8mb3_general_ci"),
    35: ("ucs2", "ucs2_general_ci"),
    45: ("utf8mb4", "utf8mb4_general_ci"),
    46: ("utf8mb4", "utf8mb4_bin"),
    47: ("latin1", "latin1_bin"),
    48: ("latin1", "latin1_general_ci"),
    49: ("latin1", "latin1_general_cs"),
    51: ("cp1251", "cp1251_general_ci"),
    54: ("utf16", "utf16_general_ci"),
    60: ("utf32", "utf32_general_ci"),
    63: ("binary", "binary"),
    65: ("ascii", "ascii_bin"),
    83: ("utf8mb3", "utf8mb3_bin"),
    87: ("gbk", "gbk_bin"),
    95: ("cp932", "cp932_japanese_ci"),
    192: ("utf8mb3", "utf8mb3_unicode_ci"),
    224: ("utf8mb4", "utf8mb4_unicode_ci"),
    248: ("gb18030", "gb18030_chinese_ci"),
    255: ("utf8mb4", "utf8mb4_0900_ai_ci"),
    278: ("utf8mb4", "utf8mb4_0900_as_cs"),
    305: ("utf8mb4", "utf8mb4_0900_as_ci"),
    309: ("utf8mb4", "utf8mb4_0900_bin"),
}
