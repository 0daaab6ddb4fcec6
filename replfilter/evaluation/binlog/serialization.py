"""MySQL's serialization library (``libs/mysql/serialization``, 8.4), the encoding of
``Gtid_tagged_log_event``.

Why a reader of its own: the tagged GTID event is not a fixed layout like the other events but a
message of numbered fields, each present or not, and its integers have their own
variable-length form (``variable_length_integers.h``, not the binlog's ``net_field_length``):

* an unsigned integer takes 1-9 bytes, little-endian; the number of trailing one bits of the
  first byte, plus one, is the byte count; the value follows those bits (9 bytes: the eight
  bytes after the first hold the whole value);
* a signed integer is first mapped to an unsigned one: ``x >= 0`` -> ``x << 1``, ``x < 0`` ->
  ``((-(x + 1)) << 1) | 1``;
* a string is its length (unsigned varlen) and its bytes; a fixed-size array is its elements
  one after the other, each with the element type's default (varlen) encoding.

A message (``serializer_impl.hpp``, ``serializer_default_impl.hpp``) is: the format version
(varlen, 1 in 8.4, written as the top-level field id), the message size in bytes counted from
the version's first byte (varlen), the last non-ignorable field id (varlen, ``id + 1`` of the
last field a reader must know, 0 when all may be ignored), then ``field_id field_data`` for
each field present. A reader that knows fewer fields than the last non-ignorable one refuses
the message (``Serialization_error_type::unknown_field``); fields it does not know after its
own are skipped by the message size.
"""

from __future__ import annotations

from typing import Callable


class SerializationProblem(ValueError):
    """A message that does not decode."""


def read_varlen_unsigned(data: bytes, pos: int) -> tuple[int, int]:
    """``read_varlen_bytes_unsigned``: (value, position after it)."""
    if pos >= len(data):
        raise SerializationProblem("message ends inside an integer")
    first = data[pos]
    count = 1
    while count <= 8 and first >> (count - 1) & 1:
        count += 1
    if pos + count > len(data):
        raise SerializationProblem("message ends inside an integer")
    if count == 1:
        return first >> 1, pos + 1
    rest = int.from_bytes(data[pos + 1:pos + count], "little")
    if count == 9:
        return rest, pos + 9
    return (first >> count) | (rest << (8 - count)), pos + count


def read_varlen_signed(data: bytes, pos: int) -> tuple[int, int]:
    """``read_varlen_bytes_signed``: the low bit is the sign."""
    raw, pos = read_varlen_unsigned(data, pos)
    return (-(raw >> 1) - 1 if raw & 1 else raw >> 1), pos


def read_string(data: bytes, pos: int, max_length: int = 0) -> tuple[bytes, int]:
    """``Primitive_type_codec<std::string>::read_bytes``: length, then the bytes; a length
    above a bounded field's maximum is an error, as in the server."""
    length, pos = read_varlen_unsigned(data, pos)
    if (max_length and length > max_length) or pos + length > len(data):
        raise SerializationProblem("string longer than its field or than the message")
    return bytes(data[pos:pos + length]), pos + length


def read_byte_array(data: bytes, pos: int, size: int) -> tuple[bytes, int]:
    """A fixed-size ``unsigned char`` array: ``size`` varlen-encoded bytes."""
    out = bytearray()
    for _ in range(size):
        value, pos = read_varlen_unsigned(data, pos)
        if value > 0xFF:
            raise SerializationProblem("array element out of byte range")
        out.append(value)
    return bytes(out), pos


FieldReader = Callable[[bytes, int], tuple[object, int]]

FORMAT_VERSION = 1


def read_message(data: bytes, fields: tuple[FieldReader, ...]) -> dict[int, object]:
    """The fields present in one top-level message, by field id. ``fields[i]`` reads field
    ``i``; fields are in increasing id order and any may be absent."""
    version, pos = read_varlen_unsigned(data, 0)
    if version != FORMAT_VERSION:
        raise SerializationProblem(f"serialization format version {version} is not known")
    size, pos = read_varlen_unsigned(data, pos)
    last_non_ignorable, pos = read_varlen_unsigned(data, pos)
    if len(fields) < last_non_ignorable:
        raise SerializationProblem("unknown, non-ignorable fields in the message")
    if size > len(data) or size < pos:
        raise SerializationProblem("message size beyond the event")
    values: dict[int, object] = {}
    for field_id, reader in enumerate(fields):
        if pos >= size:
            break
        found, after = read_varlen_unsigned(data, pos)
        if found != field_id:
            continue  # this field is absent; the next one may be the id read
        values[field_id], pos = reader(data, after)
    if pos > size:
        raise SerializationProblem("fields run past the message size")
    return values
