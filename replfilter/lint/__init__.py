"""Lint: find the replication-filter mistakes that lose data silently, before they do.

Layer between ``evaluation`` (whose evaluator decides every example a finding quotes) and
``server`` (which answers ``LINT REPLICATION``). ``findings``/``codes`` are the model,
``checks_*`` the checks by theme, ``workload`` the checks that need statements or events,
``linter`` runs them, ``output`` writes text, JSON and SARIF.
"""
