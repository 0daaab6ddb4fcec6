"""Events read from one channel's relay log: an event that names no channel is that channel's,
one that names another is a dead letter (a relay log belongs to one channel)."""

from __future__ import annotations

from pyspark.sql import functions as F

from .schema import EVENT_COLUMNS, Ingested


def claim_relay_events(ingested: Ingested, channel: str) -> Ingested:
    """Events in channel ``channel``'s relay log: no channel named -> this channel; another
    channel named -> dead letter (a relay log belongs to one channel)."""
    events = ingested.events
    named = F.col("channel")
    mine = (named == channel) | (named == "")
    claimed = events.where(mine).withColumn("channel", F.lit(channel))
    event_json = F.to_json(F.struct(*[F.col(c) for c in EVENT_COLUMNS]))
    foreign = events.where(~mine).select(
        F.concat(F.lit("event for channel '"), named, F.lit(f"' in the relay log of channel '{channel}'")).alias("reason"),
        F.coalesce(F.col("record"), event_json).alias("record"),
        F.lit(None).cast("string").alias("source_file"),
        F.lit(None).cast("long").alias("line"),
        F.lit(None).cast("binary").alias("record_bytes"),
    )
    return Ingested(claimed, ingested.dead.unionByName(foreign))


__all__ = ["claim_relay_events"]
