package dist

// SetServeGrain sets the ids a serving goroutine of x takes at a time, so
// that small tests answer a round in many chunks on several goroutines.
func SetServeGrain(x *RowExchange, grain int) { x.grain = grain }
