"""LOAD SCHEMA FROM 'file' [FOR CHANNEL 'c'] (a replfilter extension): the statement form of
``--schema``, run by the session because it reads a file (the executor does no I/O).

The file is one source's schema (every channel's source without FOR CHANNEL), replayed onto the
replica's catalog through the channel's filters (``catalog.loader``). As a statement it answers
as MySQL answers a statement: ``Query OK``, with each statement of the file that the server
would refuse as a warning that names the file and line (SHOW WARNINGS lists them all). A file
that cannot be opened, or a channel that does not exist, is an error and changes nothing.
"""

from __future__ import annotations

from ..core.errors import ER, Condition, MySQLError
from ..core.paths import shown
from ..core.results import Ok
from ..dialect import ast
from ..replica.executor import Execution
from ..replica.state import ReplicaState


def load_schema_statement(state: ReplicaState, statement: ast.LoadSchema) -> Execution:
    if statement.channel is not None and state.channel(statement.channel) is None:
        raise MySQLError.of(ER.REPLICA_CHANNEL_DOES_NOT_EXIST, statement.channel)
    # the loader reads SQL text with sqlglot: imported when a schema is loaded, not at start-up
    from ..evaluation.catalog.loader import SchemaFileError, load_schema_file

    try:
        result = load_schema_file(state, statement.path, statement.channel)
    except SchemaFileError as error:
        if error.errno == 2:
            raise MySQLError.of(ER.FILE_NOT_FOUND, statement.path, error.errno, error.strerror) from None
        raise MySQLError.of(ER.CANT_OPEN_FILE, shown(statement.path), error.errno or 0, error.strerror or "") from None
    warnings = tuple(Condition("Warning", w.error.code, str(w)) for w in result.warnings)
    return Execution(result.state, Ok(result.statistics.statements, warnings))
