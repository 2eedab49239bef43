"""CMMaTH's figures: what `compare`, the Markdown artifact and the HTML report show
(`comparison`: the paper's Table 4, visual subjects, SSR@alpha and the authors' own scores, as
`tasks.figures` declarations over the view `cmmath_figure_units`), the HTML report's plots
(`plots`), and the terminal report of one run (`run_report`: both sets of figures with the
undecided answers' coverage, read from the `cmmath_paper_*` and `cmmath_official_*` views)."""
