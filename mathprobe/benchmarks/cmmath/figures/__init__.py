"""CMMaTH's figures, declared once: what every report of its runs shows (`comparison`: the
paper's Table 4, visual subjects, SSR@alpha and the authors' own scores as `mathprobe.figures`
declarations over the view `cmmath_figure_units`, and the notes on a run: the undecided answers'
coverage, how the two sets differ) and the HTML report's plots (`plots`)."""
