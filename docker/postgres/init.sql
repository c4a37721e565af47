-- Runs once, on an empty data directory: the two databases of the pipeline.
CREATE DATABASE payments;
CREATE DATABASE accounting;
