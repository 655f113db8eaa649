"""A model file that forgot ModelUnderTest."""

ModelInputs = ()
