package dist

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/bulksample/bulksample/internal/option"
)

// Phase labels communication for the counters: which part of the work
// sent the bytes.
type Phase uint8

const (
	PhaseSample    Phase = iota // sampling: rows of A, frontier ids, picks
	PhaseFeatures               // feature rows
	PhaseGradients              // gradient all-reduces
	PhaseControl                // sizes, setup, statistics and checks
	NumPhases
)

// String returns the phase's name as the run summaries print it.
func (p Phase) String() string {
	switch p {
	case PhaseSample:
		return "sample"
	case PhaseFeatures:
		return "features"
	case PhaseGradients:
		return "gradients"
	case PhaseControl:
		return "control"
	}
	return fmt.Sprintf("Phase(%d)", int(p))
}

// Stats are the counters of one rank, or their sum or maximum over ranks.
type Stats struct {
	Bytes    [NumPhases]int64 // bytes sent to other ranks
	Messages [NumPhases]int64 // non-empty messages sent to other ranks
}

// Add adds o to s.
func (s *Stats) Add(o Stats) {
	for i := range s.Bytes {
		s.Bytes[i] += o.Bytes[i]
		s.Messages[i] += o.Messages[i]
	}
}

func (s *Stats) count(ph Phase, bytes int64, msgs int64) {
	s.Bytes[ph] += bytes
	s.Messages[ph] += msgs
}

// Op is a reduction operator of Allreduce.
type Op uint8

const (
	OpSum Op = iota
	OpMax
)

// String returns "sum" or "max".
func (o Op) String() string {
	switch o {
	case OpSum:
		return "sum"
	case OpMax:
		return "max"
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// ErrAborted is returned by the calls of every rank of an in-process job
// after one rank called Abort.
var ErrAborted = errors.New("dist: job aborted")

// Comm is a communicator: a group of ranks that make collective calls
// together. The MPI backend (NewMPIWorld) and the in-process backend
// (NewInProcWorld) implement it with the same semantics and pass the same
// conformance suite (package commtest).
//
// Buffers are []byte, []int32, []int64, []float32 or []float64; the send and
// receive buffers of one call have the same type. Receive buffers are
// written, never resized: their lengths must equal the sum of the counts.
type Comm interface {
	// Rank returns this rank's number in [0, Size()).
	Rank() int
	// Size returns the number of ranks.
	Size() int
	// Barrier returns once every rank has called it.
	Barrier(ctx context.Context, ph Phase) error
	// Bcast copies root's buf into every other rank's buf (same length).
	Bcast(ctx context.Context, ph Phase, root int, buf any) error
	// Allreduce replaces buf, on every rank, by the element-wise reduction
	// of every rank's buf ([]int64, []float32 or []float64). Sums are
	// computed in rank order, so all ranks get the same bits.
	Allreduce(ctx context.Context, ph Phase, op Op, buf any) error
	// Allgatherv concatenates every rank's send into recv, in rank order;
	// recvCounts[r] is the length of rank r's send.
	Allgatherv(ctx context.Context, ph Phase, send, recv any, recvCounts []int) error
	// Alltoallv sends send[off_d : off_d+sendCounts[d]] to rank d, where
	// off_d is the sum of the counts before d, and receives rank s's
	// segment for this rank into recv in rank order, recvCounts[s] long.
	Alltoallv(ctx context.Context, ph Phase, send any, sendCounts []int, recv any, recvCounts []int) error
	// Send sends buf to rank dst with tag (>= 0); Recv receives exactly
	// len(buf) elements from rank src with tag into buf.
	Send(ctx context.Context, ph Phase, dst, tag int, buf any) error
	Recv(ctx context.Context, ph Phase, src, tag int, buf any) error
	// Split is collective: the ranks that give the same color form a new
	// communicator, ordered by key and then by rank in this one.
	Split(ctx context.Context, color, key int) (Comm, error)
	// Stats returns this rank's counters on this communicator.
	Stats() Stats
	// Abort ends the whole job because of err, which the caller has
	// reported. Under MPI it does not return.
	Abort(err error)
	// Close frees the communicator; it is idempotent. Later calls fail.
	Close() error
}

// Options configure a backend. The zero value means the defaults.
type Options struct {
	// MaxCount is the most elements one message may carry; a call with a
	// larger count is split into several messages. 0 means
	// DefaultMaxCount, MPI's limit of int counts (2^31 - 1).
	MaxCount int
	// StallTimeout, when > 0, is the longest a rank waits in one call of
	// a communicator (a collective, or Send and Recv) before it gives up
	// on the others: it writes "rank R: <*StallError>" to StallReport,
	// naming the call, its phase and, in-process, the ranks that never
	// came, and ends the job (Abort: MPI_Abort under MPI), so that a
	// stopped or hung rank (SIGSTOP, a wedged node) does not hang the job
	// silently forever. The call then returns the *StallError (ErrStalled)
	// where it can return. 0 means none. It must exceed the longest that
	// one rank legitimately works while the others wait for it (a
	// checkpoint save, rank 0's whole-graph evaluation, a slow load).
	StallTimeout time.Duration
	// StallReport is where a stall is reported; nil means os.Stderr.
	StallReport io.Writer
}

// ErrStalled is wrapped by the *StallError of a call that waited longer
// than Options.StallTimeout.
var ErrStalled = errors.New("dist: stalled")

// StallError says which rank waited in which call for how long, and what
// it could learn of the others. Missing, in-process, lists the ranks that
// had not come to the call. Under MPI (with MPI_THREAD_MULTIPLE), Silent
// lists the ranks of the job (MPI_COMM_WORLD) that did not answer the
// stalled rank's query within a second (stopped by SIGSTOP, hung, their
// node lost), and Elsewhere what each rank that answered was doing when
// it was not waiting in this call too ("rank 2: in Bcast (phase control)
// for 19.9s", "rank 3: in no collective for 25s since Allreduce (phase
// gradients)"); Probed says that the query was made.
type StallError struct {
	Rank, Size int
	Call       string
	Phase      Phase
	Waited     time.Duration
	Limit      time.Duration // Options.StallTimeout
	Missing    []int
	Probed     bool
	Silent     []int
	Elsewhere  []string
}

func (e *StallError) Error() string {
	who := "for the other ranks (one is stopped, hung or far behind)"
	switch {
	case len(e.Missing) > 0:
		who = fmt.Sprintf("for rank%s %s, which never came", plural(len(e.Missing)), joinInts(e.Missing))
	case len(e.Silent) > 0:
		verb := "does"
		if len(e.Silent) > 1 {
			verb = "do"
		}
		who = fmt.Sprintf("for rank%s %s of the job, which %s not answer (stopped, hung, or its node lost)",
			plural(len(e.Silent)), joinInts(e.Silent), verb)
	case e.Probed && len(e.Elsewhere) > 0:
		who = "for the other ranks, which all answer but are elsewhere"
	case e.Probed:
		who = "for the other ranks, which all answer and wait in it too (a collective called on other communicators or in another order?)"
	}
	if len(e.Elsewhere) > 0 {
		who += "; " + strings.Join(e.Elsewhere, "; ")
	}
	return fmt.Sprintf("%v: waited %v, more than the stall timeout %v, in %s (phase %v, %d ranks) %s; ending the job",
		ErrStalled, e.Waited.Round(time.Millisecond), e.Limit, e.Call, e.Phase, e.Size, who)
}

func (e *StallError) Unwrap() error { return ErrStalled }

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// DefaultMaxCount is the largest count of an MPI call.
const DefaultMaxCount = math.MaxInt32

// Validate returns an *option.Error naming the first bad field, or nil.
func (o *Options) Validate() error {
	if o.MaxCount < 0 || o.MaxCount > DefaultMaxCount {
		return option.Errorf("dist", "Options", "MaxCount", o.MaxCount, "want 0 (default) or in [1, %d]", DefaultMaxCount)
	}
	if o.StallTimeout < 0 {
		return option.Errorf("dist", "Options", "StallTimeout", o.StallTimeout, "want >= 0 (0: none)")
	}
	return nil
}

func (o Options) maxCount() int {
	if o.MaxCount == 0 {
		return DefaultMaxCount
	}
	return o.MaxCount
}

// Fail reports err as "rank R: <err>" on w and aborts the job through c.
// Under MPI it does not return.
func Fail(w io.Writer, c Comm, err error) {
	fmt.Fprintf(w, "rank %d: %v\n", c.Rank(), err)
	c.Abort(err)
}

// dtype is an element type a Comm moves.
type dtype uint8

const (
	tByte dtype = iota
	tInt32
	tInt64
	tFloat32
	tFloat64
)

var dtypeSize = [...]int{tByte: 1, tInt32: 4, tInt64: 8, tFloat32: 4, tFloat64: 8}

func (t dtype) String() string {
	return [...]string{"[]byte", "[]int32", "[]int64", "[]float32", "[]float64"}[t]
}

// view returns the bytes of a buffer, its element type and its length.
func view(buf any) ([]byte, dtype, int, error) {
	switch b := buf.(type) {
	case []byte:
		return b, tByte, len(b), nil
	case []int32:
		return bytesOf(b), tInt32, len(b), nil
	case []int64:
		return bytesOf(b), tInt64, len(b), nil
	case []float32:
		return bytesOf(b), tFloat32, len(b), nil
	case []float64:
		return bytesOf(b), tFloat64, len(b), nil
	}
	return nil, 0, 0, fmt.Errorf("dist: buffer of type %T, want []byte, []int32, []int64, []float32 or []float64", buf)
}

func bytesOf[T int32 | int64 | float32 | float64](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])))
}
