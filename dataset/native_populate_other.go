//go:build unix && !linux

package dataset

// mapPopulate is Linux's MAP_POPULATE; elsewhere pages fault in on use.
const mapPopulate = 0
