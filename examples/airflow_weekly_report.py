"""Airflow DAG: the weekly impact report every Monday 06:00 UTC (``lineage weekly``).

Copy into your DAGs folder and set the three paths. ``lineage weekly`` ingests what is new under
EVENTS, builds the graph and writes REPORTS/<week>/report.{html,json,md} for the last complete
ISO week. Exit 3 means the report was written but a source had a day without events: the task
fails so the on-failure alert fires, and the report says which source and day.
"""

from __future__ import annotations

from datetime import datetime

from airflow import DAG
from airflow.operators.bash import BashOperator

EVENTS = "/data/lineage/events"  # where DataWorks/MaxCompute/Dataphin/DataHub exports land
WAREHOUSE = "/data/lineage/warehouse"
REPORTS = "/data/lineage/reports"

with DAG(
    dag_id="lineage_weekly_report",
    schedule="0 6 * * 1",
    start_date=datetime(2026, 1, 5),
    catchup=False,
    tags=["lineage"],
) as dag:
    BashOperator(
        task_id="weekly_report",
        bash_command=f"lineage weekly {EVENTS} --warehouse {WAREHOUSE} --out {REPORTS}",
    )
