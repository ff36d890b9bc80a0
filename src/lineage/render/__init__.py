"""Human output of the analysis: columns that fit the terminal, the collapsed affected subgraph, pictures."""
