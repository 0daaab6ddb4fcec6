"""Keep the decision's generated code in methods HotSpot compiles.

Why: whole-stage code generation inlines a projection's expressions into one ``processNext``
method, with the reading and writing of every input column. HotSpot does not compile a method
of more than 8,000 bytes of bytecode (``-XX:+DontCompileHugeMethods``, the default): such a
method runs interpreted, about five times slower. The decision columns of four channels made a
``processNext`` of 8,874 bytes and a 4 M-event write of 18.8 JVM CPU s against 2.3 for a
pass-through (README, "Benchmarks"). Spark moves an expression into a method of its own when
it is a common subexpression (it occurs more than once in a projection) and its code is longer
than ``spark.sql.codegen.methodSplitThreshold``; :func:`own_method` makes an expression occur
twice without changing its value. :func:`largest_method` measures the result, as Spark's
compiler reports it.
"""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

HOTSPOT_HUGE_METHOD = 8_000
"""Bytes of bytecode above which HotSpot leaves a method interpreted (``HugeMethodLimit``)."""


def own_method(column: Column) -> Column:
    """``column``, computed once per row in a generated method of its own when its code is
    long. ``GREATEST(x, x)`` is ``x`` for every value, NULL included (GREATEST skips NULLs and
    is NULL only when all are); ``x`` must be of an orderable type (strings, numbers,
    booleans)."""
    return F.greatest(column, column)


def largest_method(df) -> int:
    """The largest generated method of ``df``'s whole-stage code, in bytes of bytecode (0 when
    nothing is generated): Spark compiles each stage's code and reports its statistics. With
    adaptive execution, the plan as planned before it runs."""
    stages = df._jdf.queryExecution().debug().codegenToSeq()
    return max((stages.apply(i)._3().maxMethodCodeSize() for i in range(stages.size())), default=0)


__all__ = ["HOTSPOT_HUGE_METHOD", "largest_method", "own_method"]
