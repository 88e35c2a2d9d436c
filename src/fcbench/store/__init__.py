"""The run directory: typed records and manifest (:mod:`.records`), raw-exchange blobs
(:mod:`.blobs`) and merging shard directories (:mod:`.merge`)."""
