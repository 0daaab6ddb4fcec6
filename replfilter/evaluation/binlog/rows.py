"""Table_map events and the rows events that follow them: write, update and delete rows, v1
(MySQL 5.1-5.5 and every MariaDB) and v2 (MySQL 5.6 on), and MySQL 8.0's Partial_update_rows.

Layouts from libbinlogevents ``rows_event.h`` (``Table_map_event`` and ``Rows_event`` class
comments) and ``sql/rpl_record.cc`` (``pack_row``): a rows event is ``table_id flags
[extra data (v2)] column_count columns_present [columns_after (update)]`` then its rows, each an
image ``null bitmap + values`` (an update: the before image, then the after image). A
Partial_update_rows after image starts with ``value_options``; with ``PARTIAL_JSON_UPDATES`` set
a bitmap says which JSON columns hold a list of JSON diffs instead of a whole document.

Counting rows walks each image by the sizes of its values without decoding them
(:meth:`TableMap.skip_image`), which is what ``replfilter evaluate`` needs without ``--rows``.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from . import column_values as C
from . import event_types as T
from .column_values import RowFormatError
from .json_binary import JsonDiff, decode_json
from .row_codegen import DELETE, UPDATE, WRITE, compile_counter, compile_rows, compile_skipper
from .row_json import json_converter
from .wire import bits, read_packed

PARTIAL_JSON_UPDATES = 1
STMT_END_F = 1

# Table_map optional metadata field types (rows_event.h, Table_map_event::Optional_metadata_field_type)
SIGNEDNESS, DEFAULT_CHARSET, COLUMN_CHARSET, COLUMN_NAME = 1, 2, 3, 4
SET_STR_VALUE, ENUM_STR_VALUE, GEOMETRY_TYPE = 5, 6, 7
SIMPLE_PRIMARY_KEY, PRIMARY_KEY_WITH_PREFIX = 8, 9


@dataclass(frozen=True)
class TableMap:
    """A Table_map event: the table's identity and its columns as the source wrote them.

    ``types`` are the real types (CHAR, ENUM and SET told apart from the metadata);
    ``unsigned`` and ``names`` come from the optional metadata (``binlog_row_metadata=FULL``
    writes names; MySQL 8 writes signedness even with MINIMAL), else they are None."""

    table_id: int
    flags: int
    db: str
    table: str
    types: tuple[int, ...]
    metadata: tuple[int, ...]
    nullable: tuple[bool, ...]
    unsigned: tuple[bool, ...] | None = None
    names: tuple[str, ...] | None = None
    enum_values: dict[int, tuple[bytes, ...]] = field(default_factory=dict, compare=False, hash=False)
    set_values: dict[int, tuple[bytes, ...]] = field(default_factory=dict, compare=False, hash=False)
    primary_key: tuple[int, ...] = ()

    @property
    def column_count(self) -> int:
        return len(self.types)

    def column_names(self, schema_names: tuple[str, ...] | None = None) -> tuple[str, ...]:
        """From the optional metadata, else the loaded schema (when its column count fits),
        else ``col_1``... (1-based, as mysqlbinlog's ``@1``)."""
        if self.names is not None:
            return self.names
        if schema_names is not None and len(schema_names) == self.column_count:
            return schema_names
        return tuple(f"col_{i + 1}" for i in range(self.column_count))

    def column_names_in(self, catalog: Any) -> tuple[str, ...]:
        """:meth:`column_names` with the table's columns in ``catalog`` (a source's schema,
        ``--schema``, or None): what ``evaluate --rows`` and ``stream --rows`` name values by."""
        definition = catalog.table(self.db, self.table) if catalog is not None else None
        return self.column_names(definition.columns if definition is not None else None)

    def skip_image(self, data: bytes, pos: int, present: list[int], partial: bool = False) -> int:
        """The position after one row image, its values measured, not decoded."""
        if partial:
            return self._skip_image_slowly(data, self._skip_value_options(data, pos, present), present)
        end = compile_skipper(self.types, self.metadata, tuple(present))(data, pos)
        if end > len(data):
            raise RowFormatError("row image runs past the end of the event")
        return end

    def _skip_image_slowly(self, data: bytes, pos: int, present: list[int]) -> int:
        nulls, pos = bits(data, pos, len(present))
        sizes = self._sizes
        types, metadata = self.types, self.metadata
        for index, column in enumerate(present):
            if nulls[index]:
                continue
            size = sizes[column]
            pos += size if size is not None else C.value_size(types[column], metadata[column], data, pos)
        if pos > len(data):
            raise RowFormatError("row image runs past the end of the event")
        return pos

    def read_image(self, data: bytes, pos: int, present: list[int], partial: bool = False) -> tuple[dict[int, Any], int]:
        """``({column index: value}, next_pos)`` for one row image (NULL is None), value by
        value: what Partial_update_rows needs (its after image may hold JSON diffs)."""
        partial_columns: set[int] = set()
        if partial:
            partial_columns, pos = self._partial_columns(data, pos, present)
        nulls, pos = bits(data, pos, len(present))
        values: dict[int, Any] = {}
        unsigned = self.unsigned
        for index, column in enumerate(present):
            if nulls[index]:
                values[column] = None
                continue
            kind, meta = self.types[column], self.metadata[column]
            if column in partial_columns:
                values[column], pos = _json_diffs(data, pos, meta)
                continue
            values[column], pos = C.decoder_for(kind)(data, pos, meta, bool(unsigned and unsigned[column]))
        if pos > len(data):
            raise RowFormatError("row image runs past the end of the event")
        return values, pos

    def json_members(self) -> tuple[tuple[int, str, tuple[bytes, ...]], ...]:
        """The ENUM and SET member lists as :func:`row_codegen.compile_rows` takes them."""
        members = self.__dict__.get("_members_cache")
        if members is None:
            members = tuple(sorted([(c, "enum", v) for c, v in self.enum_values.items()]
                                   + [(c, "set", v) for c, v in self.set_values.items()]))
            object.__setattr__(self, "_members_cache", members)
        return members

    @property
    def _sizes(self) -> tuple[int | None, ...]:
        sizes = self.__dict__.get("_sizes_cache")
        if sizes is None:
            sizes = tuple(C.fixed_size(t, m) for t, m in zip(self.types, self.metadata))
            object.__setattr__(self, "_sizes_cache", sizes)
        return sizes

    def _json_columns(self, present: list[int]) -> list[int]:
        return [column for column in present if self.types[column] == C.JSON]

    def _skip_value_options(self, data: bytes, pos: int, present: list[int]) -> int:
        options, pos = read_packed(data, pos)
        if options & PARTIAL_JSON_UPDATES:
            pos += (len(self._json_columns(present)) + 7) // 8
        return pos

    def _partial_columns(self, data: bytes, pos: int, present: list[int]) -> tuple[set[int], int]:
        options, pos = read_packed(data, pos)
        if not options & PARTIAL_JSON_UPDATES:
            return set(), pos
        json_columns = self._json_columns(present)
        flags, pos = bits(data, pos, len(json_columns))
        return {column for column, partial in zip(json_columns, flags) if partial}, pos


_OPERATIONS = ("REPLACE", "INSERT", "REMOVE")


def _json_diffs(data: bytes, pos: int, length_bytes: int) -> tuple[tuple[JsonDiff, ...], int]:
    """A partial JSON value: its length as a blob's, then diffs ``operation(1) path_length
    path [value_length value]`` (``Json_diff_vector::write_binary``, sql/json_diff.cc)."""
    size = int.from_bytes(data[pos:pos + length_bytes], "little")
    pos += length_bytes
    end = pos + size
    diffs = []
    while pos < end:
        op = data[pos]
        if op > 2:
            raise RowFormatError(f"unknown JSON diff operation {op}")
        path_length, pos = read_packed(data, pos + 1)
        path = data[pos:pos + path_length].decode("utf-8")
        pos += path_length
        value = None
        if op != 2:
            value_length, pos = read_packed(data, pos)
            value = decode_json(data[pos:pos + value_length])
            pos += value_length
        diffs.append(JsonDiff(_OPERATIONS[op], path, value))
    return tuple(diffs), end


def table_id_width(post_header_len: int) -> int:
    """6-byte table ids since MySQL 5.1.4 (post-header 8, or 10 for v2 rows); 4 before."""
    return 4 if post_header_len == 6 else 6


@lru_cache(maxsize=1024)
def parse_table_map(body: bytes, post_header_len: int) -> TableMap:
    """A server writes the same Table_map again for every transaction on a table (same id,
    same columns): the parsed map is kept by its bytes, since TableMap is immutable."""
    width = table_id_width(post_header_len)
    table_id = int.from_bytes(body[:width], "little")
    flags = struct.unpack_from("<H", body, width)[0]
    pos = post_header_len
    db_len = body[pos]
    db = body[pos + 1:pos + 1 + db_len].decode("utf-8", "replace")
    pos += 2 + db_len
    table_len = body[pos]
    table = body[pos + 1:pos + 1 + table_len].decode("utf-8", "replace")
    pos += 2 + table_len
    count, pos = read_packed(body, pos)
    raw_types = body[pos:pos + count]
    if len(raw_types) != count:
        raise RowFormatError("Table_map column types cut off")
    pos += count
    meta_len, pos = read_packed(body, pos)
    meta_end = pos + meta_len
    types, metadata = [], []
    at = pos
    for raw in raw_types:
        real, meta, at = C.read_metadata(raw, body, at)
        types.append(real)
        metadata.append(meta)
    if at != meta_end:
        raise RowFormatError(f"Table_map metadata is {meta_len} bytes, its columns need {at - pos}")
    nullable, pos = bits(body, meta_end, count)
    unsigned = names = None
    enums: dict[int, tuple[bytes, ...]] = {}
    sets: dict[int, tuple[bytes, ...]] = {}
    primary: tuple[int, ...] = ()
    while pos < len(body):
        kind = body[pos]
        length, pos = read_packed(body, pos + 1)
        value = body[pos:pos + length]
        pos += length
        if kind == SIGNEDNESS:
            unsigned = _signedness(value, types)
        elif kind == COLUMN_NAME:
            names = tuple(_strings(value, count))
        elif kind == ENUM_STR_VALUE:
            enums = _value_lists(value, [i for i, t in enumerate(types) if t == C.ENUM])
        elif kind == SET_STR_VALUE:
            sets = _value_lists(value, [i for i, t in enumerate(types) if t == C.SET])
        elif kind == SIMPLE_PRIMARY_KEY:
            primary = tuple(_packed_list(value))
    return TableMap(table_id, flags, db, table, tuple(types), tuple(metadata), tuple(nullable),
                    unsigned, names, enums, sets, primary)


def _signedness(value: bytes, types: list[int]) -> tuple[bool, ...]:
    """One bit per numeric column, most significant bit first (``Table_map_event``
    "Optional metadata fields": SIGNEDNESS)."""
    flags = [False] * len(types)
    numeric = [i for i, t in enumerate(types) if t in C.NUMERIC_TYPES]
    for n, column in enumerate(numeric):
        if n // 8 < len(value):
            flags[column] = bool(value[n // 8] & (0x80 >> (n % 8)))
    return tuple(flags)


def _strings(value: bytes, count: int) -> list[str]:
    out, pos = [], 0
    while pos < len(value) and len(out) < count:
        n, pos = read_packed(value, pos)
        out.append(value[pos:pos + n].decode("utf-8", "replace"))
        pos += n
    return out


def _value_lists(value: bytes, columns: list[int]) -> dict[int, tuple[bytes, ...]]:
    out, pos = {}, 0
    for column in columns:
        if pos >= len(value):
            break
        n, pos = read_packed(value, pos)
        items = []
        for _ in range(n):
            size, pos = read_packed(value, pos)
            items.append(bytes(value[pos:pos + size]))
            pos += size
        out[column] = tuple(items)
    return out


def _packed_list(value: bytes) -> list[int]:
    out, pos = [], 0
    while pos < len(value):
        n, pos = read_packed(value, pos)
        out.append(n)
    return out


@dataclass(frozen=True)
class RowsHeader:
    """What a rows event says before its rows: which table, its flags, and which columns each
    image holds; ``rows_at`` is where the rows start in the body."""

    type_code: int
    table_id: int
    flags: int
    column_count: int
    present: tuple[int, ...]
    present_after: tuple[int, ...] | None
    rows_at: int
    extra: bytes = b""

    @property
    def is_update(self) -> bool:
        return self.type_code in T.UPDATE_TYPES

    @property
    def is_partial(self) -> bool:
        return self.type_code == T.PARTIAL_UPDATE_ROWS

    @property
    def stmt_end(self) -> bool:
        return bool(self.flags & STMT_END_F)


def parse_rows_header(type_code: int, body: bytes, post_header_len: int) -> RowsHeader:
    width = table_id_width(post_header_len)
    table_id = int.from_bytes(body[:width], "little")
    flags = struct.unpack_from("<H", body, width)[0]
    pos = post_header_len
    extra = b""
    if type_code in T.ROWS_V2_TYPES:
        extra_len = struct.unpack_from("<H", body, width + 2)[0]
        pos = width + 4
        extra = bytes(body[pos:pos + extra_len - 2])
        pos = width + 2 + extra_len
    count, pos = read_packed(body, pos)
    size = (count + 7) // 8
    present = _columns_set(body[pos:pos + size], count)
    pos += size
    after = None
    if type_code in T.UPDATE_TYPES:
        after = _columns_set(body[pos:pos + size], count)
        pos += size
    return RowsHeader(type_code, table_id, flags, count, present, after, pos, extra)


@lru_cache(maxsize=1024)
def _columns_set(bitmap: bytes, count: int) -> tuple[int, ...]:
    """The columns a rows event's bitmap holds (few bitmaps recur: kept by their bytes)."""
    flags, _ = bits(bitmap, 0, count)
    return tuple(i for i, on in enumerate(flags) if on)


def count_rows(header: RowsHeader, table: TableMap, body: bytes) -> int:
    """How many rows the event holds (an update row is one before/after pair)."""
    _check_fits(header, table)
    if header.is_partial:
        present, after = list(header.present), list(header.present_after or ())
        pos, n, end = header.rows_at, 0, len(body)
        while pos < end:
            pos = table.skip_image(body, table.skip_image(body, pos, present), after, True)
            n += 1
        return n
    count = compile_counter(table.types, table.metadata, header.present, header.present_after)
    return _guarded(count, body, header.rows_at)


def read_rows(header: RowsHeader, table: TableMap, body: bytes) -> list[tuple[dict[int, Any] | None, dict[int, Any] | None]]:
    """Every row as ``(before, after)``: a write has only an after image, a delete only a
    before image, an update both; images as ``{column index: value}``."""
    _check_fits(header, table)
    if header.is_partial:
        return _partial_rows(header, table, body)
    read = compile_rows(table.types, table.metadata, table.unsigned, table.nullable, header.present,
                        header.present_after, _kind(header))
    return _guarded(read, body, header.rows_at)


def read_rows_json(header: RowsHeader, table: TableMap, body: bytes, names: tuple[str, ...]) -> list[dict[str, Any]]:
    """Every row as ``{"before": {name: value}, "after": {...}}`` with the values as
    ``evaluate --rows`` prints them (row_json.py), decoded and converted in one pass."""
    _check_fits(header, table)
    if header.is_partial:
        converters = [json_converter(kind, table.enum_values.get(column), table.set_values.get(column))
                      for column, kind in enumerate(table.types)]
        out = []
        for before, after in _partial_rows(header, table, body):
            out.append({"before": {names[c]: converters[c](v) for c, v in before.items()},  # type: ignore[union-attr]
                        "after": {names[c]: converters[c](v) for c, v in after.items()}})  # type: ignore[union-attr]
        return out
    read = compile_rows(table.types, table.metadata, table.unsigned, table.nullable, header.present,
                        header.present_after, _kind(header), names, table.json_members())
    return _guarded(read, body, header.rows_at)


def _kind(header: RowsHeader) -> str:
    if header.is_update:
        return UPDATE
    return WRITE if header.type_code in T.WRITE_TYPES else DELETE


def _guarded(read: Any, body: bytes, pos: int) -> Any:
    try:
        return read(body, pos, len(body))
    except (IndexError, struct.error) as err:
        raise RowFormatError(f"row image does not fit its table map ({err})") from None


def _partial_rows(header: RowsHeader, table: TableMap, body: bytes) -> list[tuple[dict[int, Any] | None, dict[int, Any] | None]]:
    present, after = list(header.present), list(header.present_after or ())
    pos, end = header.rows_at, len(body)
    rows: list[tuple[dict[int, Any] | None, dict[int, Any] | None]] = []
    while pos < end:
        image, pos = table.read_image(body, pos, present)
        changed, pos = table.read_image(body, pos, after, True)
        rows.append((image, changed))
    return rows


def _check_fits(header: RowsHeader, table: TableMap) -> None:
    if header.column_count > table.column_count:
        raise RowFormatError(
            f"rows event for table_id {header.table_id} has {header.column_count} columns, its Table_map {table.column_count}"
        )
