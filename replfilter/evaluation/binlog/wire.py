"""The binlog's variable-length integers and strings (libbinlogevents ``binary_log_funcs``,
``net_field_length``): a first byte below 251 is the value; 252, 253 and 254 announce a 2-,
3- and 8-byte little-endian value; 251 is SQL NULL."""

from __future__ import annotations


def read_packed(data: bytes, pos: int) -> tuple[int, int]:
    first = data[pos]
    if first < 251:
        return first, pos + 1
    if first == 252:
        return data[pos + 1] | (data[pos + 2] << 8), pos + 3
    if first == 253:
        return int.from_bytes(data[pos + 1:pos + 4], "little"), pos + 4
    if first == 254:
        return int.from_bytes(data[pos + 1:pos + 9], "little"), pos + 9
    raise ValueError(f"bad packed integer prefix {first}")


def write_packed(value: int) -> bytes:
    if value < 251:
        return bytes([value])
    if value < 1 << 16:
        return b"\xfc" + value.to_bytes(2, "little")
    if value < 1 << 24:
        return b"\xfd" + value.to_bytes(3, "little")
    return b"\xfe" + value.to_bytes(8, "little")


def bits(data: bytes, pos: int, count: int) -> tuple[list[bool], int]:
    """``count`` bits of a little-endian bitmap (bit 0 is the low bit of the first byte)."""
    size = (count + 7) // 8
    chunk = int.from_bytes(data[pos:pos + size], "little")
    return [bool(chunk >> i & 1) for i in range(count)], pos + size
