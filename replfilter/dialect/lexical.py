"""MySQL's lexical rules for the tokens the grammar hands over: string literals and quoted names.

Kept apart from the transformer because the statement splitter, the shell's highlighter and the
printer need the same rules.
"""

from __future__ import annotations

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


def quote_string(value: str) -> str:
    """A single-quoted literal that :func:`unescape_string` turns back into ``value``.

    ``\\%`` and ``\\_`` pairs are written as they are: the lexer keeps them verbatim.
    """
    out: list[str] = []
    i = 0
    while i < len(value):
        ch = value[i]
        if ch == "\\" and i + 1 < len(value) and value[i + 1] in "%_":
            out.append(value[i : i + 2])
            i += 2
            continue
        out.append(
            {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\r": "\\r", "\0": "\\0", "\x1a": "\\Z", "\b": "\\b", "\t": "\\t"}.get(
                ch, ch
            )
        )
        i += 1
    return "'" + "".join(out) + "'"


def unquote_identifier(token: str) -> str:
    """A backtick-quoted name with its doubled backticks collapsed; bare names unchanged."""
    if token.startswith("`"):
        return token[1:-1].replace("``", "`")
    return token


def quote_identifier(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"
