package postgres

// The cache's bounds by bytes, for its tests.
const (
	MaxListShare   = maxListShare
	MaxListEntry   = maxListEntry
	MaxListBytes   = maxListBytes
	MaxEntityEntry = maxEntityEntry
	MaxEntityBytes = maxEntityBytes
)
