"""Reading SQL text: tokens, statement trees, per-statement readers, and the events a statement is logged as
(mysql-filter-evaluation.md, "From SQL text to events")."""
