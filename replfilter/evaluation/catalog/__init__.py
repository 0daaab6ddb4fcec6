"""Reading a schema: DDL text into catalog changes, mysqldump files, and the replica's catalog following
applied DDL (mysql-filter-evaluation.md, step 5 and the "objects on the replica" rows)."""
