"""MaxCompute GRANT / REVOKE / SET LABEL statements read by ``lineage.sql.security``; expectations by hand."""

from __future__ import annotations

import typing

import pytest

from lineage.sql import security


@pytest.mark.parametrize("sql, want", [
    ("grant createtable on project meta to  ALIYUN$xxx@aliyun.com;",
     {"verb": "grant", "privileges": ("createtable",), "object_type": "project", "object_name": "meta",
          "principals": (security.Principal("user", "ALIYUN$xxx@aliyun.com"),)}),
    ("revoke select, update on table `p`.`t` from role r",
     {"verb": "revoke", "privileges": ("select", "update"), "object_type": "table", "object_name": "p.t",
          "principals": (security.Principal("role", "r"),)}),
    ("grant Select on table t (c1, c2) to user \"RAM$x@y.com:sub\" privilegeproperties(\"expires\"=\"2\")",
     {"verb": "grant", "privileges": ("select",), "object_type": "table", "object_name": "t", "columns": ("c1", "c2"),
          "principals": (security.Principal("user", "RAM$x@y.com:sub"),)}),
    ("GRANT LABEL 2 ON TABLE t(col1, col2) TO USER RAM$a@b.com:sub WITH EXP 5",
     {"verb": "grant", "label": "2", "object_type": "table", "object_name": "t", "columns": ("col1", "col2"),
          "principals": (security.Principal("user", "RAM$a@b.com:sub"),), "exp_days": 5}),
    ("grant r1, r2 to ALIYUN$to@x.com",
     {"verb": "grant", "privileges": ("r1", "r2"), "principals": (security.Principal("user", "ALIYUN$to@x.com"),)}),
    ("SET LABEL 3 TO TABLE t1test(col1);",
     {"verb": "set", "label": "3", "object_type": "table", "object_name": "t1test", "columns": ("col1",)}),
])
def test_parse_privilege_statement(sql: str, want: dict[str, typing.Any]) -> None:
    assert security.parse_privilege_statement(sql) == security.PrivilegeStatement(**want)


@pytest.mark.parametrize("sql", [None, "", "select 1", "grant 'unterminated"])
def test_not_a_privilege_statement(sql: str | None) -> None:
    assert security.parse_privilege_statement(sql) is None
