package sampling

// SetPerPassGoroutines makes s run every parallel pass on goroutines
// started for the pass (on) or on the call's team (off, the default).
func SetPerPassGoroutines(s *LayerWise, on bool) { s.perPassGoroutines = on }
