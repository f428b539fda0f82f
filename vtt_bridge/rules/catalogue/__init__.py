"""The step catalogue by the rules' families (`rules/steps.py` joins them): `fields` (the kinds of
data field and a key's declaration), one module per family, and `wording` (how each field is worded).
"""
