"""lineage: one temporal graph of DataWorks, MaxCompute, Dataphin and DataHub events."""

__version__ = "0.1.0"
