"""Rows-event readers compiled per table layout: one Python function per (Table_map layout,
columns present, kind of event, output form) that counts or decodes every row of an event in
one loop, each column's step inlined.

Why generated code: an image is a null bitmap and then one value per present column, whose
layout depends only on the table map. A generic loop pays, for every value, a list lookup, a
call and a type dispatch. What the generated loop does instead (measured on bench/binlog.py's
file, README "Binary logs and relay logs": 0.07 x mariadb-binlog -v's rows per second before,
0.25 x after):

* every run of NOT NULL fixed-width columns is read by as few precompiled ``struct.Struct``
  as its byte orders allow: little-endian integers and floats, a DECIMAL's groups of nine
  digits and a DATETIME2's parts big-endian, one-byte values (TINYINT, a one-byte ENUM) and
  byte strings (TIMESTAMP2, turned into one integer by ``int.from_bytes``) in either;
* DECIMAL, DATETIME2 and TIMESTAMP2 are decoded by inlined integer arithmetic specialised to
  the column's precision, dates, times of day and fractions looked up as texts (:class:`Texts`);
* the JSON form (``evaluate --rows``) is built in the same pass: DECIMAL stays its text, strings
  are decoded once, ENUM indexes become their names, without the typed value in between; an
  image is one dict display whose keys, the column names, are constants put into the compiled
  code (:func:`_named_keys`);
* rows are read in a loop inside the function: no call per image.

A nullable column tests its bit; a NOT NULL column (per the Table_map's nullability) has no
test, so an image that flags a NOT NULL column as NULL (which the server does not write) is
read by the generic reader, as is a Partial_update_rows after image (rows.py). The text
generated is built only from the table map's integers (types, metadata sizes, bit masks),
never from names or data: names, ENUM and SET member lists reach the function as values.
"""

from __future__ import annotations

import struct
from decimal import Decimal
from functools import lru_cache
from typing import Any, Callable

from . import column_values as C
from .json_binary import decode_json
from .row_json import json_converter, text_or_base64
from .wire import bits

Skipper = Callable[[bytes, int], int]
Counter = Callable[[bytes, int, int], int]
RowsReader = Callable[[bytes, int, int], list]

_BLOBS = (C.BLOB, C.TINY_BLOB, C.MEDIUM_BLOB, C.LONG_BLOB, C.GEOMETRY, C.VECTOR)
_STRINGS = (C.VARCHAR, C.VAR_STRING, C.STRING)
_INT_CODES = {C.TINY: "b", C.SHORT: "h", C.LONG: "i", C.LONGLONG: "q"}
_UINT_CODES = {1: "B", 2: "H", 4: "I", 8: "Q"}
_FRACTION_SCALE = (10000, 100, 1)

WRITE, DELETE, UPDATE = "write", "delete", "update"


def _size_step(kind: int, meta: int) -> list[str]:
    """Statements advancing ``pos`` over one value."""
    size = C.fixed_size(kind, meta)
    if size is not None:
        return [f"pos += {size}"]
    if kind in _STRINGS:
        return ["pos += 1 + data[pos]"] if meta < 256 else ["pos += 2 + (data[pos] | data[pos + 1] << 8)"]
    if kind in _BLOBS or kind == C.JSON:
        if meta == 1:
            return ["pos += 1 + data[pos]"]
        return [f"pos += {meta} + int.from_bytes(data[pos:pos + {meta}], 'little')"]
    raise C.RowFormatError(f"column type {kind} is not known to this reader")


def _null_prefix(count: int) -> list[str]:
    size = (count + 7) // 8
    read = "nulls = data[pos]" if size == 1 else f"nulls = int.from_bytes(data[pos:pos + {size}], 'little')"
    return [read, f"pos += {size}"]


@lru_cache(maxsize=4096)
def compile_skipper(types: tuple[int, ...], metadata: tuple[int, ...], present: tuple[int, ...]) -> Skipper:
    """``skip(data, pos) -> pos`` past one image (Partial_update_rows' before images)."""
    lines = ["def skip(data, pos):", *("    " + s for s in _image_skip(types, metadata, present)), "    return pos"]
    return _compile("\n".join(lines), "skip", {})


@lru_cache(maxsize=4096)
def compile_counter(types: tuple[int, ...], metadata: tuple[int, ...], present: tuple[int, ...],
                    present_after: tuple[int, ...] | None) -> Counter:
    """``count(data, pos, end) -> rows``: walks every row by the sizes of its values (an
    update row is its before and its after image), decoding none."""
    lines = ["def count(data, pos, end):", "    n = 0", *_no_columns_guard(present, present_after), "    while pos < end:"]
    lines += ["        " + s for s in _image_skip(types, metadata, present)]
    if present_after is not None:
        lines += ["        " + s for s in _image_skip(types, metadata, present_after)]
    lines += ["        n += 1", "    if pos > end:", "        raise RowFormatError('row image runs past the end of the event')",
              "    return n"]
    return _compile("\n".join(lines), "count", {})


def _no_columns_guard(present: tuple[int, ...], present_after: tuple[int, ...] | None) -> list[str]:
    """Images of no column take no byte: bytes after them cannot be rows (and the loop would
    never advance)."""
    if present or present_after:
        return []
    return ["    if pos < end:", "        raise RowFormatError('rows event with no column present has bytes left')"]


def _image_skip(types: tuple[int, ...], metadata: tuple[int, ...], present: tuple[int, ...]) -> list[str]:
    lines = _null_prefix(len(present))
    for index, column in enumerate(present):
        lines.append(f"if not nulls & {1 << index}:")
        lines += ["    " + s for s in _size_step(types[column], metadata[column])]
    return lines


# --- decoding ---------------------------------------------------------------------------------


class Texts:
    """Texts by integer, each made on first use: a dict hit is far cheaper than ``%``
    formatting (DATETIME2's six-field format took 1.9 µs in a timeit run, its date, time and
    fraction looked up 0.16 µs). ``table`` is a plain dict, so that the generated code's
    ``table[key]`` is the interpreter's specialised dict lookup (a dict subclass with
    ``__missing__`` is not specialised); a miss raises KeyError there and the code's fallback
    calls :meth:`text`. Emptied when it holds 2**17 texts (every time of day fits), so memory
    stays flat whatever the data."""

    def __init__(self, make: Callable[[int], str]):
        self.table: dict[int, str] = {}
        self.make = make

    def text(self, key: int) -> str:
        text = self.table.get(key)
        if text is None:
            if len(self.table) >= 1 << 17:
                self.table.clear()
            text = self.table[key] = self.make(key)
        return text


DAYS = Texts(lambda d: "%04d-%02d-%02d " % ((d >> 5) // 13, (d >> 5) % 13, d & 31))
"""DATETIME2's date by its 22 bits ``year * 13 + month << 5 | day`` (column_values._datetime2)."""
TIMES = Texts(lambda t: "%02d:%02d:%02d" % (t >> 12, (t >> 6) & 63, t & 63))
FRACTIONS = {fsp: Texts(lambda f, fsp=fsp: (".%06d" % (f * _FRACTION_SCALE[(fsp + 1) // 2 - 1]))[:fsp + 1])
             for fsp in range(1, 5)}
"""A temporal fraction's text by its stored integer, for precisions stored in one or two bytes
(column_values._micro_text); five and six digits (a million values) are formatted each time."""
DECIMAL_FRACTIONS = {scale: Texts(lambda f, scale=scale: f".{f:0{scale}d}") for scale in range(1, 5)}
"""DECIMAL's fraction text, for scales up to 4 (larger ones are formatted each time)."""


class _Text:
    """Generated statements and the values the function's namespace must hold for them."""

    def __init__(self) -> None:
        self.namespace: dict[str, Any] = {}
        self._structs: dict[str, str] = {}

    def struct(self, fmt: str) -> str:
        name = self._structs.get(fmt)
        if name is None:
            name = self._structs[fmt] = f"s{len(self._structs)}"
            self.namespace[name] = struct.Struct(fmt).unpack_from
        return name

    def bind(self, name: str, value: Any) -> str:
        self.namespace[name] = value
        return name

    def texts(self, name: str, texts: Texts) -> Callable[[str, bool], str]:
        """How generated code looks a text up in ``texts``: ``look(key, True)`` indexes its
        dict (the fast path), ``look(key, False)`` calls its maker (the KeyError fallback)."""
        self.namespace[name] = texts.table
        self.namespace[f"{name}_text"] = texts.text
        return lambda key, fast: f"{name}[{key}]" if fast else f"{name}_text({key})"


def _looked_up(target: str, expression: Callable[[bool], str]) -> list[str]:
    """``target = expression`` whose text lookups (:meth:`_Text.texts`) hit their dicts, and on
    a miss are made and kept."""
    return ["try:", f"    {target} = {expression(True)}", "except KeyError:", f"    {target} = {expression(False)}"]


@lru_cache(maxsize=4096)
def compile_rows(types: tuple[int, ...], metadata: tuple[int, ...], unsigned: tuple[bool, ...] | None,
                 nullable: tuple[bool, ...], present: tuple[int, ...], present_after: tuple[int, ...] | None,
                 kind: str, json_names: tuple[str, ...] | None = None,
                 members: tuple[tuple[int, str, tuple[bytes, ...]], ...] = ()) -> RowsReader:
    """``read(data, pos, end) -> rows`` for every row of a write, delete or update rows event.

    Typed (``json_names`` None): each row is ``(before, after)``, images as ``{column index:
    value}`` with :mod:`column_values`' values. JSON (``json_names`` the column names): each row
    is ``{"before": {...}, "after": {...}}`` keyed by name with :func:`row_json.json_converter`'s
    values; ``members`` are the ENUM (``"enum"``) and SET (``"set"``) member lists by column."""
    text = _Text()
    as_json = json_names is not None
    lists = {column: (what, values) for column, what, values in members}
    columns = _Columns(types, metadata, unsigned or (False,) * len(types), nullable, json_names, lists, text)
    images = [present] if present_after is None else [present, present_after]
    lines = ["def read(data, pos, end):", "    rows = []", "    append = rows.append", *_no_columns_guard(present, present_after),
             "    while pos < end:"]
    for tag, image in enumerate(images):
        lines += ["        " + s for s in columns.image(image, f"img{tag}", tag)]
    if kind == UPDATE:
        shape = "{'before': img0, 'after': img1}" if as_json else "(img0, img1)"
    elif kind == WRITE:
        shape = "{'after': img0}" if as_json else "(None, img0)"
    else:
        shape = "{'before': img0}" if as_json else "(img0, None)"
    lines += [f"        append({shape})", "    if pos > end:",
              "        raise RowFormatError('row image runs past the end of the event')", "    return rows"]
    read = _compile("\n".join(lines), "read", text.namespace)
    if as_json:
        read.__code__ = _named_keys(read.__code__, json_names)  # type: ignore[arg-type]
    return read


_KEY = "\0column "


def _named_keys(code: Any, names: tuple[str, ...]) -> Any:
    """The code with the placeholder keys of its image dicts (``"\\0column N"``) replaced by
    the column names, as constants: a dict display with constant keys is built in one step,
    and the names never enter the generated text."""
    def swap(value: Any) -> Any:
        if isinstance(value, tuple) and value and all(isinstance(k, str) and k.startswith(_KEY) for k in value):
            return tuple(names[int(k[len(_KEY):])] for k in value)
        if isinstance(value, str) and value.startswith(_KEY):
            return names[int(value[len(_KEY):])]
        return value

    return code.replace(co_consts=tuple(swap(c) for c in code.co_consts))


class _Columns:
    """The statements decoding one image's columns."""

    def __init__(self, types, metadata, unsigned, nullable, names, lists, text: _Text):
        self.types, self.metadata, self.unsigned, self.nullable = types, metadata, unsigned, nullable
        self.names, self.as_json, self.lists, self.text = names, names is not None, lists, text

    def image(self, present: tuple[int, ...], target: str, tag: int) -> list[str]:
        """Statements reading one image at ``pos`` into ``target``. Consecutive NOT NULL
        fixed-width columns form runs read by one struct each."""
        strict = sum(1 << i for i, column in enumerate(present) if not self.nullable[column])
        body: list[str] = []
        run: list[int] = []
        for index, column in enumerate(present):
            size = C.fixed_size(self.types[column], self.metadata[column])
            if size is not None and not self.nullable[column]:
                run.append(column)
                continue
            body += self._run(run)
            run = []
            step = self._fixed(column, "pos", size) if size is not None else self._variable(column)
            if self.nullable[column]:
                body += [f"if nulls & {1 << index}:", f"    v{column} = None", "else:", *("    " + s for s in step)]
            else:
                body += step
        body += self._run(run)
        keys = (lambda c: repr(f"{_KEY}{c}")) if self.as_json else str
        body.append(f"{target} = {{" + ", ".join(f"{keys(c)}: v{c}" for c in present) + "}")
        lines = _null_prefix(len(present))
        if not strict:
            return lines + body
        slow = self.text.bind(f"slow{tag}", self._generic(present))
        start = f"pos - {(len(present) + 7) // 8}"
        return lines + [f"if nulls & {strict}:", f"    {target}, pos = {slow}(data, {start})", "else:",
                        *("    " + s for s in body)]

    def _run(self, run: list[int]) -> list[str]:
        """Consecutive NOT NULL fixed-width columns: as few structs as their byte orders allow
        (one-byte fields, strings and skipped bytes fit either order)."""
        if not run:
            return []
        segments: list[tuple[str | None, int, list[tuple[str, str | None]], list[str]]] = []
        offset = 0
        for column in run:
            size = C.fixed_size(self.types[column], self.metadata[column])
            assert size is not None
            pieces, order, post = self._fixed_parts(column, f"pos + {offset}" if offset else "pos", size)
            if segments and (order is None or segments[-1][0] in (None, order)):
                last_order, start, last_pieces, last_post = segments[-1]
                segments[-1] = (order or last_order, start, last_pieces + pieces, last_post + post)
            else:
                segments.append((order, offset, pieces, post))
            offset += size
        lines: list[str] = []
        for order, start, pieces, post in segments:
            lines += self._unpack(order, pieces, f"pos + {start}" if start else "pos") + post
        return lines + [f"pos += {offset}"]

    def _unpack(self, order: str | None, pieces: list[tuple[str, str | None]], at: str) -> list[str]:
        names = [name for _, name in pieces if name is not None]
        if not names:
            return []
        unpack = self.text.struct((order or "<") + "".join(code for code, _ in pieces))
        return [f"{', '.join(names)}, = {unpack}(data, {at})"]

    def _fixed(self, column: int, at: str, size: int) -> list[str]:
        """One fixed-width column on its own (a nullable one)."""
        pieces, order, post = self._fixed_parts(column, at, size)
        return self._unpack(order, pieces, at) + post + [f"pos += {size}"]

    def _fixed_parts(self, column: int, at: str, size: int) -> tuple[list[tuple[str, str | None]], str | None, list[str]]:
        """``(struct fields as (code, name or None), byte order they need or None for either,
        statements after)`` for a fixed-width value at ``at``; a value read by its decoder is
        skipped bytes in the struct."""
        kind, meta, unsigned = self.types[column], self.metadata[column], self.unsigned[column]
        v, raw = f"v{column}", f"r{column}"
        if kind in _INT_CODES:
            code = _INT_CODES[kind].upper() if unsigned else _INT_CODES[kind]
            return [(code, v)], (None if kind == C.TINY else "<"), []
        if kind in (C.FLOAT, C.DOUBLE, C.TIMESTAMP):
            return [({C.FLOAT: "f", C.DOUBLE: "d", C.TIMESTAMP: "I"}[kind], v)], "<", []
        if kind == C.YEAR:
            return [("B", raw)], None, [f"{v} = 1900 + {raw} if {raw} else 0"]
        if kind == C.INT24:
            return [("3s", raw)], None, [f"{v} = int.from_bytes({raw}, 'little', signed={not unsigned})"]
        if kind in (C.ENUM, C.SET) and meta in _UINT_CODES:
            return [(_UINT_CODES[meta], v)], (None if meta == 1 else "<"), self._members(column)
        if kind == C.NEWDECIMAL and size:
            pieces, post = self._decimal(column)
            return pieces, ">", post
        if kind == C.DATETIME2 and meta <= 6:
            pieces, post = self._datetime2(column, meta)
            return pieces, ">", post
        if kind == C.TIMESTAMP2 and meta <= 6:
            return [(f"{size}s", raw)], None, self._timestamp2(column, raw, meta)
        decoder = self.text.bind(f"d{kind}", C.decoder_for(kind))
        return [(f"{size}x", None)], None, [f"{v} = {decoder}(data, {at}, {meta}, {unsigned})[0]", *self._members(column)]

    def _members(self, column: int) -> list[str]:
        """ENUM and SET as JSON: their member names where the Table_map lists them."""
        if not self.as_json or column not in self.lists:
            return []
        what, values = self.lists[column]
        names = self.text.bind(f"m{column}", [n.decode("utf-8", "replace") for n in values])
        v = f"v{column}"
        if what == "enum" and self.metadata[column] == 1:  # every byte's name, '' for no member
            table = tuple(([""] + self.text.namespace[names])[:256]) + ("",) * (255 - len(values))
            self.text.bind(names, table)
            return [f"{v} = {names}[{v}]"]
        if what == "enum":
            return [f"{v} = {names}[{v} - 1] if 0 < {v} <= {len(values)} else ''"]
        return [f"{v} = ','.join([n for i, n in enumerate({names}) if {v} >> i & 1])"]

    def _decimal(self, column: int) -> tuple[list[tuple[str, str | None]], list[str]]:
        """``bin2decimal`` (column_values._decimal) unrolled for this precision: each group of
        nine digits (and the partial ones at both ends) read by one big-endian struct, the
        sign in the first group's top bit, a negative number's groups inverted; ``(struct fields,
        statements after)``."""
        _size, scale, groups = C._decimal_layout(self.metadata[column])
        left_to_right = list(reversed(groups))
        pieces: list[tuple[str, str | None]] = []
        values = []
        for index, (nbytes, worth, is_fraction) in enumerate(left_to_right):
            g, h = f"g{column}_{index}", f"h{column}_{index}"
            if nbytes == 3:
                pieces += [("B", g), ("H", h)]
                values.append((f"({g} << 16 | {h})", nbytes, worth, is_fraction))
            else:
                pieces.append(({1: "B", 2: "H", 4: "I"}[nbytes], g))
                values.append((g, nbytes, worth, is_fraction))
        v = f"v{column}"
        fractions = self.text.texts(f"decimals{scale}", DECIMAL_FRACTIONS[scale]) if scale in DECIMAL_FRACTIONS else None
        first_bytes = values[0][1]
        positive = f"{values[0][0]} & {1 << (8 * first_bytes - 1)}"
        lines = _looked_up(v, lambda fast: f" if {positive} else ".join(self._decimal_texts(values, scale, fractions, fast)))
        if not self.as_json:
            lines.append(f"{v} = Decimal({v})")
        return pieces, lines

    @staticmethod
    def _decimal_texts(values, scale: int, fractions, fast: bool) -> list[str]:
        """The DECIMAL's text when positive and when negative."""
        texts = []
        for negative in (False, True):
            parts: dict[bool, list[str]] = {False: [], True: []}
            for index, (value, nbytes, worth, is_fraction) in enumerate(values):
                flip = (1 << 8 * nbytes) - 1 if negative else 0
                if index == 0:
                    flip ^= 1 << (8 * nbytes - 1)  # the sign bit
                term = f"({value} ^ {flip})" if flip else value
                parts[is_fraction].append(term if worth == 1 else f"{term} * {worth}")
            whole = " + ".join(parts[False]) or "0"
            fraction = " + ".join(parts[True])
            sign = "-" if negative else ""
            if fractions is not None:
                texts.append(f"f'{sign}{{{whole}}}{{{fractions(fraction, fast)}}}'")
            elif scale:
                texts.append(f"f'{sign}{{{whole}}}.{{{fraction}:0{scale}d}}'")
            else:
                texts.append(f"f'{sign}{{{whole}}}'")
        return texts

    def _datetime2(self, column: int, fsp: int) -> tuple[list[tuple[str, str | None]], list[str]]:
        """column_values._datetime2 inlined: the five bytes read big-endian as ``y`` (four) and
        ``z`` (one), so that, the offset 2**39 taken off, the date part ``packed >> 17`` is
        ``(y >> 9) - 2**22`` and the time of day ``packed & 0x1FFFF`` is ``(y & 511) << 8 | z``;
        date, time of day and fraction are looked up as texts (:class:`Texts`)."""
        v, y, z, f, e = (f"{name}{column}" for name in "vyzfe")
        frac_bytes = (fsp + 1) // 2
        pieces: list[tuple[str, str | None]] = [("I", y), ("B", z)]
        pieces += {0: [], 1: [("B", f)], 2: [("H", f)], 3: [("B", f), ("H", e)]}[frac_bytes]
        fraction = f"({f} << 16 | {e})" if frac_bytes == 3 else f
        days, times = self.text.texts("days", DAYS), self.text.texts("times", TIMES)
        fractions = self.text.texts(f"fractions{fsp}", FRACTIONS[fsp]) if fsp in FRACTIONS else None

        def text(fast: bool) -> str:
            out = f"f'{{{days(f'({y} >> 9) - 4194304', fast)}}}{{{times(f'({y} & 511) << 8 | {z}', fast)}}}"
            if fractions is not None:
                out += f"{{{fractions(fraction, fast)}}}"
            out += "'"
            if frac_bytes and fractions is None:
                out += f" + ('.%06d' % {fraction})[:{fsp + 1}]"
            return out

        return pieces, _looked_up(v, text)

    def _timestamp2(self, column: int, raw: str, fsp: int) -> list[str]:
        v = f"v{column}"
        frac_bytes = (fsp + 1) // 2
        if not frac_bytes:
            return [f"{v} = int.from_bytes({raw}, 'big')"]
        lines = [f"x = int.from_bytes({raw}, 'big')"]
        fraction = f"x & {(1 << 8 * frac_bytes) - 1}"
        if fsp in FRACTIONS:
            fractions = self.text.texts(f"fractions{fsp}", FRACTIONS[fsp])
            lines += _looked_up(v, lambda fast: f"f'{{x >> {8 * frac_bytes}}}{{{fractions(fraction, fast)}}}'")
        else:
            lines.append(f"{v} = f'{{x >> {8 * frac_bytes}}}' + ('.%06d' % ({fraction}))[:{fsp + 1}]")
        return lines if self.as_json else lines + [f"{v} = Decimal({v})"]

    def _variable(self, column: int) -> list[str]:
        """A value with its length in front: strings, BLOBs, GEOMETRY, VECTOR, JSON."""
        kind, meta = self.types[column], self.metadata[column]
        v = f"v{column}"
        if kind in _STRINGS:
            width = 1 if meta < 256 else 2
        elif kind in _BLOBS or kind == C.JSON:
            width = meta
        else:
            raise C.RowFormatError(f"column type {kind} is not known to this reader")
        length = "data[pos]" if width == 1 else (
            "(data[pos] | data[pos + 1] << 8)" if width == 2 else f"int.from_bytes(data[pos:pos + {width}], 'little')")
        lines = [f"n = pos + {width} + {length}"]  # where the value ends
        value = f"data[pos + {width}:n]"
        if kind == C.JSON:
            convert = self.text.bind("json_value", json_converter(C.JSON)) if self.as_json else ""
            self.text.bind("decode_json", decode_json)
            lines.append(f"{v} = {convert}(decode_json({value}))")
        elif self.as_json:
            self.text.bind("text_or_base64", text_or_base64)
            lines += ["try:", f"    {v} = {value}.decode()", "except UnicodeDecodeError:", f"    {v} = text_or_base64({value})"]
        else:
            lines.append(f"{v} = {value}")
        return lines + ["pos = n"]

    def _generic(self, present: tuple[int, ...]) -> Callable[[bytes, int], tuple[dict, int]]:
        """An image read value by value, for an image the fast path does not expect."""
        return generic_image_reader(self.types, self.metadata, self.unsigned, present,
                                    self._converters() if self.as_json else None,
                                    self.names)

    def _converters(self) -> list[Callable[[Any], Any]]:
        out = []
        for column, kind in enumerate(self.types):
            what, values = self.lists.get(column, (None, ()))
            out.append(json_converter(kind, values if what == "enum" else None, values if what == "set" else None))
        return out


def generic_image_reader(types, metadata, unsigned, present, converters=None, names=None) -> Callable[[bytes, int], tuple[dict, int]]:
    """``read(data, pos) -> (image, pos)`` one value at a time through :mod:`column_values`'
    decoders: keyed by column index, or (``names``) by name with ``converters`` applied."""
    decoders = [C.decoder_for(types[c]) for c in present]
    keys = [names[c] if names is not None else c for c in present]
    convert = [converters[c] for c in present] if converters is not None else None

    def read(data: bytes, pos: int) -> tuple[dict, int]:
        nulls, pos = bits(data, pos, len(present))
        out: dict = {}
        for index, column in enumerate(present):
            if nulls[index]:
                out[keys[index]] = None
                continue
            value, pos = decoders[index](data, pos, metadata[column], bool(unsigned and unsigned[column]))
            out[keys[index]] = convert[index](value) if convert is not None else value
        return out, pos

    return read


def _compile(text: str, name: str, namespace: dict[str, Any]) -> Any:
    namespace = dict(namespace, Decimal=Decimal, RowFormatError=C.RowFormatError)
    exec(compile(text, f"<binlog row {name}>", "exec"), namespace)  # noqa: S102 - text built from integers only
    return namespace[name]
