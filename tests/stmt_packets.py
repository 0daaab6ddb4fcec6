"""COM_STMT_EXECUTE and COM_STMT_SEND_LONG_DATA packets (their payloads, after the command byte),
built as libmysqlclient builds them, for the tests that speak the binary protocol directly."""

from __future__ import annotations

import struct
from typing import Any, Sequence

VAR_STRING, DOUBLE, LONGLONG, NULL = 0xFD, 0x05, 0x08, 0x06


def _value(value: Any) -> tuple[int, bytes]:
    """A value's type byte and its binary-protocol encoding."""
    if value is None:
        return NULL, b""
    if isinstance(value, float):
        return DOUBLE, struct.pack("<d", value)
    if isinstance(value, int):
        return LONGLONG, struct.pack("<q", value)
    data = value.encode() if isinstance(value, str) else bytes(value)
    assert len(data) < 251
    return VAR_STRING, bytes([len(data)]) + data


def execute_payload(stmt_id: int, values: Sequence[Any], *, bound: bool = True,
                    long_data: frozenset[int] = frozenset()) -> bytes:
    """``bound`` is the new-params-bound flag: False sends no types, as clients do after the
    first execution. A parameter in ``long_data`` keeps its type but its value is left out."""
    encoded = [_value(value) for value in values]
    bitmap = bytearray((len(values) + 7) // 8)
    for index, value in enumerate(values):
        if value is None:
            bitmap[index // 8] |= 1 << (index % 8)
    payload = struct.pack("<IBI", stmt_id, 0, 1) + bytes(bitmap) + bytes([int(bound)])
    if bound:
        payload += b"".join(bytes([kind, 0]) for kind, _ in encoded)
    return payload + b"".join(data for index, (_, data) in enumerate(encoded) if index not in long_data)


def long_data_payload(stmt_id: int, parameter: int, chunk: bytes) -> bytes:
    return struct.pack("<IH", stmt_id, parameter) + chunk
