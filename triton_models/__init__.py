"""The Triton model repository (package data): `<model>/config.pbtxt`, `<model>/1/model.py`.

A package only so that `importlib.resources` finds it in a wheel install as in the checkout
(mathprobe.paths); tritonserver reads the folder itself."""
