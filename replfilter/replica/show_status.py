"""SHOW REPLICA STATUS: MySQL 8.4's 60 columns in order, and SHOW SLAVE STATUS's 8.0 names.

Filter columns show the channel's own filter (mysql-filter-statements.md, 7.2). The other columns carry what a stopped
or idle simulated replica would show: its source settings, thread flags, no errors, no lag.
"""

from __future__ import annotations

from datetime import datetime

from typing import Callable

from ..core.errors import ER, MySQLError
from ..core.filters import FilterType
from ..core.results import ResultSet, Value
from .state import Channel, ReplicaState

COLUMNS: tuple[str, ...] = (
    "Replica_IO_State", "Source_Host", "Source_User", "Source_Port", "Connect_Retry",
    "Source_Log_File", "Read_Source_Log_Pos", "Relay_Log_File", "Relay_Log_Pos",
    "Relay_Source_Log_File", "Replica_IO_Running", "Replica_SQL_Running", "Replicate_Do_DB",
    "Replicate_Ignore_DB", "Replicate_Do_Table", "Replicate_Ignore_Table",
    "Replicate_Wild_Do_Table", "Replicate_Wild_Ignore_Table", "Last_Errno", "Last_Error",
    "Skip_Counter", "Exec_Source_Log_Pos", "Relay_Log_Space", "Until_Condition",
    "Until_Log_File", "Until_Log_Pos", "Source_SSL_Allowed", "Source_SSL_CA_File",
    "Source_SSL_CA_Path", "Source_SSL_Cert", "Source_SSL_Cipher", "Source_SSL_Key",
    "Seconds_Behind_Source", "Source_SSL_Verify_Server_Cert", "Last_IO_Errno", "Last_IO_Error",
    "Last_SQL_Errno", "Last_SQL_Error", "Replicate_Ignore_Server_Ids", "Source_Server_Id",
    "Source_UUID", "Source_Info_File", "SQL_Delay", "SQL_Remaining_Delay",
    "Replica_SQL_Running_State", "Source_Retry_Count", "Source_Bind", "Last_IO_Error_Timestamp",
    "Last_SQL_Error_Timestamp", "Source_SSL_Crl", "Source_SSL_Crlpath", "Retrieved_Gtid_Set",
    "Executed_Gtid_Set", "Auto_Position", "Replicate_Rewrite_DB", "Channel_Name",
    "Source_TLS_Version", "Source_public_key_path", "Get_Source_public_key", "Network_Namespace",
)

# SHOW SLAVE STATUS (8.0): same columns, old names; the filter columns keep theirs.
LEGACY_NAMES: dict[str, str] = {
    "Replica_IO_State": "Slave_IO_State",
    "Source_Host": "Master_Host",
    "Source_User": "Master_User",
    "Source_Port": "Master_Port",
    "Source_Log_File": "Master_Log_File",
    "Read_Source_Log_Pos": "Read_Master_Log_Pos",
    "Relay_Source_Log_File": "Relay_Master_Log_File",
    "Replica_IO_Running": "Slave_IO_Running",
    "Replica_SQL_Running": "Slave_SQL_Running",
    "Exec_Source_Log_Pos": "Exec_Master_Log_Pos",
    "Source_SSL_Allowed": "Master_SSL_Allowed",
    "Source_SSL_CA_File": "Master_SSL_CA_File",
    "Source_SSL_CA_Path": "Master_SSL_CA_Path",
    "Source_SSL_Cert": "Master_SSL_Cert",
    "Source_SSL_Cipher": "Master_SSL_Cipher",
    "Source_SSL_Key": "Master_SSL_Key",
    "Seconds_Behind_Source": "Seconds_Behind_Master",
    "Source_SSL_Verify_Server_Cert": "Master_SSL_Verify_Server_Cert",
    "Source_Server_Id": "Master_Server_Id",
    "Source_UUID": "Master_UUID",
    "Source_Info_File": "Master_Info_File",
    "Replica_SQL_Running_State": "Slave_SQL_Running_State",
    "Source_Retry_Count": "Master_Retry_Count",
    "Source_Bind": "Master_Bind",
    "Source_SSL_Crl": "Master_SSL_Crl",
    "Source_SSL_Crlpath": "Master_SSL_Crlpath",
    "Source_TLS_Version": "Master_TLS_Version",
    "Source_public_key_path": "Master_public_key_path",
    "Get_Source_public_key": "Get_master_public_key",
}
LEGACY_COLUMNS: tuple[str, ...] = tuple(LEGACY_NAMES.get(c, c) for c in COLUMNS)

IO_STATE_RUNNING = "Waiting for source to send event"
SQL_STATE_RUNNING = "Replica has read all relay log; waiting for more updates"

# Optional per-channel overrides of the progress columns (the Spark runtime reports its applier
# there); keyed by channel name, then by 8.4 column name.
ProgressSource = Callable[[str], dict[str, Value]]


def relay_log_file(channel_name: str) -> str:
    suffix = f"-{channel_name}" if channel_name else ""
    return f"replfilter-relay-bin{suffix}.000001"


def status_row(channel: Channel) -> tuple[Value, ...]:
    source, filters = channel.source, channel.filters
    values: dict[str, Value] = {
        "Replica_IO_State": IO_STATE_RUNNING if channel.io_running else "",
        "Source_Host": source.host,
        "Source_User": source.user,
        "Source_Port": source.port,
        "Connect_Retry": source.connect_retry,
        "Source_Log_File": source.log_file,
        "Read_Source_Log_Pos": source.log_pos,
        "Relay_Log_File": source.relay_log_file or relay_log_file(channel.name),
        "Relay_Log_Pos": source.relay_log_pos or 4,
        "Relay_Source_Log_File": source.log_file,
        "Replica_IO_Running": "Yes" if channel.io_running else "No",
        "Replica_SQL_Running": "Yes" if channel.sql_running else "No",
        "Last_Errno": channel.last_sql_error[0] if channel.last_sql_error else 0,
        "Last_Error": channel.last_sql_error[1] if channel.last_sql_error else "",
        "Skip_Counter": 0,
        "Exec_Source_Log_Pos": source.log_pos,
        "Relay_Log_Space": 0,
        "Until_Condition": channel.until.kind if channel.until else "None",
        "Until_Log_File": channel.until.log_file if channel.until else "",
        "Until_Log_Pos": channel.until.log_pos if channel.until else 0,
        "Source_SSL_Allowed": "No",
        "Source_SSL_CA_File": "",
        "Source_SSL_CA_Path": "",
        "Source_SSL_Cert": "",
        "Source_SSL_Cipher": "",
        "Source_SSL_Key": "",
        "Seconds_Behind_Source": 0 if channel.sql_running and channel.io_running else None,
        "Source_SSL_Verify_Server_Cert": "No",
        "Last_IO_Errno": 0,
        "Last_IO_Error": "",
        "Last_SQL_Errno": channel.last_sql_error[0] if channel.last_sql_error else 0,
        "Last_SQL_Error": channel.last_sql_error[1] if channel.last_sql_error else "",
        "Replicate_Ignore_Server_Ids": "",
        "Source_Server_Id": 0,
        "Source_UUID": "",
        "Source_Info_File": "mysql.slave_master_info",
        "SQL_Delay": source.delay,
        "SQL_Remaining_Delay": None,
        "Replica_SQL_Running_State": SQL_STATE_RUNNING if channel.sql_running else "",
        "Source_Retry_Count": source.retry_count,
        "Source_Bind": source.bind,
        "Last_IO_Error_Timestamp": "",
        "Last_SQL_Error_Timestamp": error_timestamp(channel.last_sql_error_at) if channel.last_sql_error else "",
        "Source_SSL_Crl": "",
        "Source_SSL_Crlpath": "",
        "Retrieved_Gtid_Set": "",
        "Executed_Gtid_Set": "",
        "Auto_Position": source.auto_position,
        "Channel_Name": channel.name,
        "Source_TLS_Version": "",
        "Source_public_key_path": "",
        "Get_Source_public_key": 0,
        "Network_Namespace": "",
    }
    for ftype in FilterType:
        values[ftype.status_column] = filters.display(ftype)
    return tuple(values[column] for column in COLUMNS)


def error_timestamp(microseconds: int) -> str:
    """``Slave_reporting_capability``'s stamp of an error: ``YYMMDD HH:MM:SS`` in local time
    (rpl_reporting.cc), empty when the time is not known."""
    if not microseconds:
        return ""
    return datetime.fromtimestamp(microseconds / 1_000_000).strftime("%y%m%d %H:%M:%S")


def show_replica_status(
    state: ReplicaState, channel_name: str | None, legacy: bool = False, progress: ProgressSource | None = None
) -> ResultSet:
    """All configured non-GR channels in name order, or the one named (3074 first, then 3139 for
    the GR applier channel; an unconfigured channel gives an empty result): mysql-filter-statements.md,
    section 4.7."""
    if channel_name is None:
        channels = list(state.configured_channels())
    else:
        channel = state.channel(channel_name)
        if channel is None:
            raise MySQLError.of(ER.REPLICA_CHANNEL_DOES_NOT_EXIST, channel_name)
        if channel.name == "group_replication_applier":
            raise MySQLError.of(ER.REPLICA_CHANNEL_OPERATION_NOT_ALLOWED, "SHOW REPLICA STATUS", channel_name)
        channels = [channel] if channel.configured else []
    rows = []
    for channel in channels:
        row = status_row(channel)
        if progress is not None:
            overrides = progress(channel.name)
            row = tuple(overrides.get(column, value) for column, value in zip(COLUMNS, row))
        rows.append(row)
    return ResultSet(LEGACY_COLUMNS if legacy else COLUMNS, tuple(rows))
