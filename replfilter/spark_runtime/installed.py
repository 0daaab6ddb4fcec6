"""Whether the Spark runtime's packages are installed, checked without importing them.

``pip install replfilter`` installs the light package (the shell, scripts, EXPLAIN and
``replfilter evaluate``); PySpark, PyArrow and pandas come with the ``spark`` extra. The two
commands that need them, ``replfilter stream`` and ``START REPLICA`` on a channel with a relay log,
ask here first, so a light install answers with the one line that says how to get them instead of
a ``ModuleNotFoundError`` from deep inside a Spark import.
"""

from __future__ import annotations

import importlib.util

SPARK_PACKAGES = ("pyspark", "pyarrow", "pandas")
INSTALL_HINT = "pip install 'replfilter[spark]' (in a checkout: pip install '.[spark]')"


def missing_spark_packages() -> tuple[str, ...]:
    """The Spark runtime's packages that cannot be imported here, in install order."""
    return tuple(name for name in SPARK_PACKAGES if importlib.util.find_spec(name) is None)


def spark_missing_message() -> str | None:
    """One line saying that the Spark runtime is missing and how to install it; None when every
    package it needs is installed."""
    missing = missing_spark_packages()
    if not missing:
        return None
    return f"the Spark runtime is not installed (missing: {', '.join(missing)}); install it with {INSTALL_HINT}"
