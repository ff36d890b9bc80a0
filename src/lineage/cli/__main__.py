"""`python -m lineage.cli`: the same commands as the `lineage` script."""

from lineage.cli import main

main()
