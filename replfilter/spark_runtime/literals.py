"""Array literals built in the JVM with one py4j call each.

Why: ``F.array(F.lit(a), F.lit(b), ...)`` costs several py4j round trips per element and an
analyser pass over one child per element — seconds for the thousands of entries of a slot
table, and ~0.25 s even for the four small outcome arrays of a decision. Spark Connect has no
JVM gateway: there the functions return None and callers use ``F.array``.
"""

from __future__ import annotations

import struct
from typing import Sequence

from pyspark.sql import Column

_PRIMITIVES = {"long": ("q", "long", "asLongBuffer"), "int": ("i", "int", "asIntBuffer")}


def _gateway(spark):
    jvm = getattr(spark, "_jvm", None)
    sc = getattr(spark, "_sc", None)
    if jvm is None or sc is None:
        return None, None
    return jvm, sc._gateway


def has_jvm(spark) -> bool:
    """True for a classic (py4j) session, where the functions below return columns."""
    return _gateway(spark)[0] is not None


def primitive_array(spark, values: Sequence[int], kind: str) -> Column | None:
    """A ``long`` or ``int`` array literal: the values cross py4j as one packed byte string."""
    jvm, gateway = _gateway(spark)
    if jvm is None:
        return None
    fmt, java_type, view = _PRIMITIVES[kind]
    array = gateway.new_array(getattr(gateway.jvm, java_type), len(values))
    if values:
        buffer = jvm.java.nio.ByteBuffer.wrap(bytearray(struct.pack(f">{len(values)}{fmt}", *values)))
        getattr(buffer, view)().get(array)
    return Column(jvm.org.apache.spark.sql.functions.lit(array))


def string_array(spark, values: Sequence[str | None]) -> Column | None:
    """An ``array<string>`` literal (NULL elements allowed), one py4j call per element: meant
    for short arrays (the distinct outcomes of a batch)."""
    jvm, gateway = _gateway(spark)
    if jvm is None:
        return None
    array = gateway.new_array(gateway.jvm.String, len(values))
    for i, value in enumerate(values):
        if value is not None:
            array[i] = value
    return Column(jvm.org.apache.spark.sql.functions.lit(array))
