"""MaxCompute SQL: the sqlglot dialect, table lineage and privilege statements.

* ``dialect``  -- ``MaxCompute(Hive)``: the few tokenizer/parser overrides that differ from Hive.
* ``kinds``    -- every statement kind as one table: its effect (data / schema / none) and how it is read.
* ``lineage``  -- tables and storage paths each statement of a script reads and writes (``table_lineage``).
* ``security`` -- what a GRANT / REVOKE / SET LABEL statement says (``parse_privilege_statement``).
"""
