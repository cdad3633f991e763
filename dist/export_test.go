package dist

// SetGrains sets the ids a serving goroutine of x takes at a time and the
// fewest ids a goroutine of its bucketing and reordering takes, so that
// small tests run them in many pieces on several goroutines.
func SetGrains(x *RowExchange, serve, bucket int) { x.grain, x.bgrain = serve, bucket }
