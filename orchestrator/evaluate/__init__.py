"""`invoke evaluate`: a data set through one simulator session, scored per sample."""
