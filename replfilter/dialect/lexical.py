"""MySQL's lexical rules for the tokens the grammar hands over: string literals and quoted names.

Kept apart from the transformer because the statement splitter, the shell's highlighter and the
printer need the same rules.
"""

from __future__ import annotations

import re

# MySQL's escape sequences inside string literals (sql_lex.cc). ``\%`` and ``\_`` keep their
# backslash so LIKE patterns can still tell an escaped wildcard; any other escaped character
# stands for itself.
_ESCAPES = {
    "0": "\0",
    "'": "'",
    '"': '"',
    "b": "\b",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "Z": "\x1a",
    "\\": "\\",
    "%": "\\%",
    "_": "\\_",
}


def unescape_string(token: str) -> str:
    """The value of a quoted literal token (``'...'`` or ``"..."``), quotes removed."""
    quote, body = token[0], token[1:-1]
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
        elif ch == quote and i + 1 < len(body) and body[i + 1] == quote:
            out.append(quote)
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


_PLAIN_STRING = re.compile("[\\\\'\n\r\0\x1a\b\t]")


def quote_string(value: str) -> str:
    """A single-quoted literal that :func:`unescape_string` turns back into ``value``.

    ``\\%`` and ``\\_`` pairs are written as they are: the lexer keeps them verbatim.
    """
    if _PLAIN_STRING.search(value) is None:  # nothing to escape: the common case, and fast
        return "'" + value + "'"
    return "'" + _ESCAPED.sub(_escape_one, value) + "'"


_ESCAPED = re.compile("\\\\[%_]|[\\\\'\n\r\0\x1a\b\t]")
_QUOTED = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\r": "\\r", "\0": "\\0", "\x1a": "\\Z", "\b": "\\b", "\t": "\\t"}


def _escape_one(match: "re.Match[str]") -> str:
    text = match.group()
    return text if len(text) == 2 else _QUOTED[text]


def unquote_identifier(token: str) -> str:
    """A backtick-quoted name with its doubled backticks collapsed; bare names unchanged."""
    if token.startswith("`"):
        return token[1:-1].replace("``", "`")
    return token


def quote_identifier(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def invalid_utf8(text: str) -> str | None:
    """The bytes of ``text`` that are not UTF-8, from the first one, in hex as MySQL's 1300
    quotes them (``'FF'``), or None when every character is. Such bytes reach the parser as lone
    surrogates: the script and terminal readers keep undecodable bytes (``surrogateescape``), and
    Python callers can pass any code point."""
    found = _SURROGATE.search(text)  # every parsed statement passes here: one regex scan, not a loop
    if found is None:
        return None
    first = found.start()
    return b"".join(_char_bytes(c) for c in text[first:first + 32]).hex().upper()


_SURROGATE = re.compile("[\ud800-\udfff]")


def _char_bytes(char: str) -> bytes:
    if "\udc80" <= char <= "\udcff":  # an undecodable byte, kept by surrogateescape
        return bytes([ord(char) - 0xDC00])
    return char.encode("utf-8", "surrogatepass")


def expand_executable_comments(text: str, version_id: int) -> str:
    """MySQL's executable comments, as its lexer reads them (sql_lex.cc, ``/*!``): the text of
    ``/*! ... */`` and of ``/*!NNNNN ... */`` with NNNNN <= ``version_id`` is statement text; a
    ``/*!NNNNN ... */`` for a later version is a comment. Quotes and other comments are left as
    they are.

    The result has the length of ``text``, the comment's markers (and a skipped comment) turned
    into spaces, so a position in it is the same position in ``text`` (for the "near" of 1064)."""
    if "/*!" not in text:
        return text
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "'\"`":
            end = _quoted_end(text, i)
            out.append(text[i:end])
            i = end
        elif text.startswith("/*!", i):
            close = text.find("*/", i + 3)
            if close < 0:  # never closed: left as it is, a syntax error as in MySQL
                out.append(text[i:])
                break
            digits = text[i + 3 : i + 8]
            start = i + 3
            enabled = True
            if len(digits) == 5 and digits.isdigit():
                start = i + 8
                enabled = int(digits) <= version_id
            if enabled:
                out.append(" " * (start - i) + text[start:close] + "  ")
            else:
                out.append(" " * (close + 2 - i))
            i = close + 2
        elif text.startswith("/*", i):
            close = text.find("*/", i + 2)
            end = n if close < 0 else close + 2
            out.append(text[i:end])
            i = end
        elif ch == "#" or (text.startswith("--", i) and (i + 2 >= n or text[i + 2] in " \t\r\n")):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(text[i:end])
            i = end
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _quoted_end(text: str, start: int) -> int:
    """Where the quoted literal or name opened at ``start`` ends (doubled quotes and, outside
    backticks, backslash escapes inside); the text's end when it is never closed."""
    quote = text[start]
    i = start + 1
    while i < len(text):
        if text[i] == "\\" and quote != "`":
            i += 2
        elif text[i] == quote:
            if i + 1 < len(text) and text[i + 1] == quote:
                i += 2
            else:
                return i + 1
        else:
            i += 1
    return len(text)
