//go:build mpi

package dist

// The MPI backend: a thin cgo binding against mpi.h (Open MPI from Debian's
// libopenmpi-dev; MPICH through Debian's mpi-c alternative too). Each call
// is one MPI call on a communicator duplicated from MPI_COMM_WORLD, so the
// library's messages never mix with the user's; every status becomes an
// error naming the call with MPI_Error_string's text. Predefined handles
// are C macros, so small C functions return them. Point-to-point messages
// are nonblocking and their buffers pinned until MPI_Waitall returns.

/*
#cgo pkg-config: mpi-c
#include <mpi.h>
#include <stdlib.h>

static MPI_Comm bs_world(void) { return MPI_COMM_WORLD; }
static MPI_Comm bs_null(void) { return MPI_COMM_NULL; }

// MPI_IN_PLACE is a sentinel address (1 in Open MPI), not a pointer Go may
// hold: a Go variable holding it is a bad pointer when the stack is copied.
// It therefore never leaves C.
static int bs_allreduce_in_place(void *buf, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
	return MPI_Allreduce(MPI_IN_PLACE, buf, n, t, op, c);
}

static MPI_Datatype bs_type(int t) {
	switch (t) {
	case 0: return MPI_BYTE;
	case 1: return MPI_INT32_T;
	case 2: return MPI_INT64_T;
	case 3: return MPI_FLOAT;
	default: return MPI_DOUBLE;
	}
}

static MPI_Op bs_op(int o) { return o == 0 ? MPI_SUM : MPI_MAX; }

static int bs_init(int *provided) {
	int inited = 0;
	int rc = MPI_Initialized(&inited);
	if (rc != MPI_SUCCESS) return rc;
	if (inited) return MPI_Query_thread(provided);
	return MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, provided);
}

static int bs_dup_world(MPI_Comm *out) {
	int rc = MPI_Comm_dup(MPI_COMM_WORLD, out);
	if (rc != MPI_SUCCESS) return rc;
	return MPI_Comm_set_errhandler(*out, MPI_ERRORS_RETURN);
}

static int bs_split(MPI_Comm c, int color, int key, MPI_Comm *out) {
	int rc = MPI_Comm_split(c, color, key, out);
	if (rc != MPI_SUCCESS) return rc;
	return MPI_Comm_set_errhandler(*out, MPI_ERRORS_RETURN);
}

static int bs_finalize(void) {
	int done = 0;
	MPI_Finalized(&done);
	return done ? MPI_SUCCESS : MPI_Finalize();
}

static MPI_Request *bs_requests(int n) { return (MPI_Request *)calloc(n > 0 ? n : 1, sizeof(MPI_Request)); }

static int bs_any_source(void) { return MPI_ANY_SOURCE; }
static MPI_Status *bs_status(void) { return (MPI_Status *)calloc(1, sizeof(MPI_Status)); }
static int bs_source(MPI_Status *s) { return s->MPI_SOURCE; }
static int bs_test(MPI_Request *r, int *flag) { return MPI_Test(r, flag, MPI_STATUS_IGNORE); }
static int bs_cancel_wait(MPI_Request *r) {
	int rc = MPI_Cancel(r);
	if (rc != MPI_SUCCESS) return rc;
	return MPI_Wait(r, MPI_STATUS_IGNORE);
}
*/
import "C"

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"time"
	"unsafe"
)

// MPIAvailable reports whether this binary was built with MPI.
const MPIAvailable = true

// mpiTagBase offsets user tags so that the internal negative tags map to
// MPI tags >= 0; MPI guarantees tags up to 32767.
const mpiTagBase = 16

// NewMPIWorld initialises MPI (once per process; it asks for
// MPI_THREAD_MULTIPLE and needs MPI_THREAD_SERIALIZED at least, since a
// goroutine may move between threads; ConcurrentComms reports which was
// granted) and returns a duplicate of MPI_COMM_WORLD. Close it after every
// communicator split from it: that frees the duplicate and finalises MPI,
// after which MPI cannot be used again in this process. There is no
// finalizer: finalising MPI behind the back of live sub-communicators would
// break them.
func NewMPIWorld(opt Options) (Comm, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	quietAbort()
	var provided C.int
	if rc := C.bs_init(&provided); rc != C.MPI_SUCCESS {
		return nil, mpiError("MPI_Init_thread", rc)
	}
	if provided < C.MPI_THREAD_SERIALIZED {
		return nil, fmt.Errorf("dist: MPI_Init_thread: thread level %d, want MPI_THREAD_SERIALIZED or better", int(provided))
	}
	m := &mpiComm{world: true, multiple: provided >= C.MPI_THREAD_MULTIPLE}
	if rc := C.bs_dup_world(&m.c); rc != C.MPI_SUCCESS {
		return nil, mpiError("MPI_Comm_dup", rc)
	}
	var r, s C.int
	if rc := C.MPI_Comm_rank(m.c, &r); rc != C.MPI_SUCCESS {
		return nil, mpiError("MPI_Comm_rank", rc)
	}
	if rc := C.MPI_Comm_size(m.c, &s); rc != C.MPI_SUCCESS {
		return nil, mpiError("MPI_Comm_size", rc)
	}
	m.me, m.n = int(r), int(s)
	if opt.StallTimeout > 0 && m.multiple && m.n > 1 {
		job, err := newMPIWatch()
		if err != nil {
			return nil, err
		}
		m.job = job
	}
	return newComm(m, opt), nil
}

// quietEnv is Open MPI's parameter that keeps a rank's "helpful messages"
// (its show_help texts) from being printed; it is read when MPI starts.
const quietEnv = "OMPI_MCA_orte_execute_quiet"

// quietAbort sets quietEnv in this process's environment, unless the user
// set it: when a rank ends the job (Abort) after printing "rank R: <error>",
// Open MPI followed that one line with a 7-line notice that MPI_ABORT was
// invoked, which buried it. The notice is printed by the aborting rank,
// so the rank's own setting silences it; mpirun's own messages are not
// affected. `mpirun -x OMPI_MCA_orte_execute_quiet=0` brings the rank's
// messages back. Other MPIs ignore the variable.
func quietAbort() {
	if _, set := os.LookupEnv(quietEnv); !set {
		_ = os.Setenv(quietEnv, "1")
	}
}

// mpiError turns an MPI status into an error with MPI's own message.
func mpiError(call string, rc C.int) error {
	var buf [C.MPI_MAX_ERROR_STRING + 1]C.char
	var n C.int
	if C.MPI_Error_string(rc, &buf[0], &n) != C.MPI_SUCCESS {
		return fmt.Errorf("%s: MPI error %d", call, int(rc))
	}
	return fmt.Errorf("%s: %s (MPI error %d)", call, C.GoStringN(&buf[0], n), int(rc))
}

type mpiComm struct {
	c     C.MPI_Comm
	me, n int
	world bool // finalise MPI on close
	// job, when not nil (a stall timeout, MPI_THREAD_MULTIPLE), answers
	// the stall queries of the other ranks for this process; the
	// communicators split from the world share it.
	job *mpiWatch
	// multiple: MPI granted MPI_THREAD_MULTIPLE, so that communicators
	// may be called from several threads at once (ConcurrentComms).
	multiple bool
}

func (m *mpiComm) threadMultiple() bool { return m.multiple }

var _ transport = (*mpiComm)(nil)

func (m *mpiComm) rank() int { return m.me }
func (m *mpiComm) size() int { return m.n }

// ptr returns the address of b's first byte, or nil for an empty b (a
// count-0 call reads nothing, and &b[0] would panic).
func ptr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(unsafe.SliceData(b))
}

func cints(xs []int) []C.int {
	out := make([]C.int, len(xs))
	for i, x := range xs {
		out[i] = C.int(x)
	}
	return out
}

func (m *mpiComm) barrier(ctx context.Context) error {
	if rc := C.MPI_Barrier(m.c); rc != C.MPI_SUCCESS {
		return mpiError("MPI_Barrier", rc)
	}
	return nil
}

func (m *mpiComm) bcast(ctx context.Context, root int, t dtype, buf []byte) error {
	n := len(buf) / dtypeSize[t]
	if rc := C.MPI_Bcast(ptr(buf), C.int(n), C.bs_type(C.int(t)), C.int(root), m.c); rc != C.MPI_SUCCESS {
		return mpiError("MPI_Bcast", rc)
	}
	return nil
}

func (m *mpiComm) allreduce(ctx context.Context, t dtype, op Op, buf []byte) error {
	n := len(buf) / dtypeSize[t]
	if rc := C.bs_allreduce_in_place(ptr(buf), C.int(n), C.bs_type(C.int(t)), C.bs_op(C.int(op)), m.c); rc != C.MPI_SUCCESS {
		return mpiError("MPI_Allreduce", rc)
	}
	return nil
}

func (m *mpiComm) allgatherv(ctx context.Context, t dtype, send, recv []byte, counts, displs []int) error {
	cc, cd := cints(counts), cints(displs)
	dt := C.bs_type(C.int(t))
	rc := C.MPI_Allgatherv(ptr(send), C.int(len(send)/dtypeSize[t]), dt, ptr(recv), &cc[0], &cd[0], dt, m.c)
	if rc != C.MPI_SUCCESS {
		return mpiError("MPI_Allgatherv", rc)
	}
	return nil
}

func (m *mpiComm) alltoallv(ctx context.Context, t dtype, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error {
	sc, sd, rc_, rd := cints(scounts), cints(sdispls), cints(rcounts), cints(rdispls)
	dt := C.bs_type(C.int(t))
	rc := C.MPI_Alltoallv(ptr(send), &sc[0], &sd[0], dt, ptr(recv), &rc_[0], &rd[0], dt, m.c)
	if rc != C.MPI_SUCCESS {
		return mpiError("MPI_Alltoallv", rc)
	}
	return nil
}

func (m *mpiComm) exchange(ctx context.Context, t dtype, sends, recvs []message) error {
	n := len(sends) + len(recvs)
	reqs := C.bs_requests(C.int(n))
	defer C.free(unsafe.Pointer(reqs))
	req := unsafe.Slice(reqs, max(n, 1))
	var pin runtime.Pinner // MPI holds the buffers until MPI_Waitall
	defer pin.Unpin()
	dt := C.bs_type(C.int(t))
	posted := 0
	var err error
	for _, msg := range recvs {
		if len(msg.buf) > 0 {
			pin.Pin(&msg.buf[0])
		}
		if rc := C.MPI_Irecv(ptr(msg.buf), C.int(len(msg.buf)/dtypeSize[t]), dt, C.int(msg.peer), C.int(msg.tag+mpiTagBase), m.c, &req[posted]); rc != C.MPI_SUCCESS {
			err = mpiError("MPI_Irecv", rc)
			break
		}
		posted++
	}
	for _, msg := range sends {
		if err != nil {
			break
		}
		if len(msg.buf) > 0 {
			pin.Pin(&msg.buf[0])
		}
		if rc := C.MPI_Isend(ptr(msg.buf), C.int(len(msg.buf)/dtypeSize[t]), dt, C.int(msg.peer), C.int(msg.tag+mpiTagBase), m.c, &req[posted]); rc != C.MPI_SUCCESS {
			err = mpiError("MPI_Isend", rc)
			break
		}
		posted++
	}
	if posted > 0 {
		// Wait even after an error: MPI must release the pinned buffers.
		if rc := C.MPI_Waitall(C.int(posted), reqs, nil); rc != C.MPI_SUCCESS && err == nil {
			err = mpiError("MPI_Waitall", rc)
		}
	}
	return err
}

func (m *mpiComm) split(ctx context.Context, color, key int) (transport, error) {
	out := &mpiComm{multiple: m.multiple, job: m.job}
	if rc := C.bs_split(m.c, C.int(color), C.int(key), &out.c); rc != C.MPI_SUCCESS {
		return nil, mpiError("MPI_Comm_split", rc)
	}
	var r, s C.int
	if rc := C.MPI_Comm_rank(out.c, &r); rc != C.MPI_SUCCESS {
		return nil, mpiError("MPI_Comm_rank", rc)
	}
	if rc := C.MPI_Comm_size(out.c, &s); rc != C.MPI_SUCCESS {
		return nil, mpiError("MPI_Comm_size", rc)
	}
	out.me, out.n = int(r), int(s)
	return out, nil
}

// abort ends every process of the job (MPI_Abort on the world, as the
// launcher expects); it does not return.
func (m *mpiComm) abort(err error) {
	C.MPI_Abort(C.bs_world(), 1)
	select {} // MPI_Abort should not return; never continue past it
}

func (m *mpiComm) close() error {
	if m.world && m.job != nil {
		if err := m.job.close(); err != nil {
			return err
		}
	}
	if m.c != C.bs_null() {
		if rc := C.MPI_Comm_free(&m.c); rc != C.MPI_SUCCESS {
			return mpiError("MPI_Comm_free", rc)
		}
	}
	if m.world {
		if rc := C.bs_finalize(); rc != C.MPI_SUCCESS {
			return mpiError("MPI_Finalize", rc)
		}
	}
	return nil
}

// The stall probe's messages, on a communicator of their own (a duplicate
// of MPI_COMM_WORLD): a query (queryLen bytes, ignored) and its answer, the
// answering process's callBoard.describe, NUL-padded to answerLen bytes.
const (
	tagQuery  = 1
	tagAnswer = 2
	queryLen  = 8
	answerLen = 256
)

// mpiWatch is a process's side of the stall probe (stallprobe.go): the
// board of the calls it is in, and the goroutine that answers the queries.
type mpiWatch struct {
	c     C.MPI_Comm
	calls callBoard
	stop  chan struct{}
	done  chan struct{}
}

// newMPIWatch duplicates MPI_COMM_WORLD for the probe and starts the
// answering goroutine.
func newMPIWatch() (*mpiWatch, error) {
	w := &mpiWatch{stop: make(chan struct{}), done: make(chan struct{})}
	if rc := C.bs_dup_world(&w.c); rc != C.MPI_SUCCESS {
		return nil, mpiError("MPI_Comm_dup", rc)
	}
	go w.answer()
	return w, nil
}

// answer answers every query with what this process is doing, until
// close: it polls a posted receive every probePoll (a blocking receive
// would spin a core in most MPI libraries).
func (w *mpiWatch) answer() {
	defer close(w.done)
	query := C.malloc(queryLen)
	reply := (*[answerLen]byte)(C.malloc(answerLen))
	req := C.bs_requests(1)
	st := C.bs_status()
	defer func() {
		C.free(query)
		C.free(unsafe.Pointer(reply))
		C.free(unsafe.Pointer(req))
		C.free(unsafe.Pointer(st))
	}()
	tick := time.NewTicker(probePoll)
	defer tick.Stop()
	for {
		if rc := C.MPI_Irecv(query, queryLen, C.bs_type(0), C.bs_any_source(), tagQuery, w.c, req); rc != C.MPI_SUCCESS {
			return
		}
		for {
			var flag C.int
			if rc := C.MPI_Test(req, &flag, st); rc != C.MPI_SUCCESS {
				return
			}
			if flag != 0 {
				break
			}
			select {
			case <-w.stop:
				C.bs_cancel_wait(req)
				return
			case <-tick.C:
			}
		}
		*reply = [answerLen]byte{}
		copy(reply[:answerLen-1], w.calls.describe(time.Now()))
		C.MPI_Send(unsafe.Pointer(reply), answerLen, C.bs_type(0), C.bs_source(st), tagAnswer, w.c)
	}
}

// close stops the answering goroutine and frees the communicator.
func (w *mpiWatch) close() error {
	close(w.stop)
	<-w.done
	if rc := C.MPI_Comm_free(&w.c); rc != C.MPI_SUCCESS {
		return mpiError("MPI_Comm_free", rc)
	}
	return nil
}

// probe asks every other rank of the job what it is doing and waits up to
// wait for the answers (stallprobe.go). It is called once, just before the
// job is aborted: the requests of ranks that never answer stay posted, and
// their buffers are never freed.
func (w *mpiWatch) probe(me, n int, wait time.Duration) peerReport {
	rep := peerReport{answers: map[int]string{}}
	query := C.malloc(queryLen)
	answers := C.malloc(C.size_t(n * answerLen))
	reqs := C.bs_requests(C.int(2 * n))
	req := unsafe.Slice(reqs, 2*n)
	all := unsafe.Slice((*byte)(answers), n*answerLen)
	posted := make([]bool, n)
	for q := range n {
		if q == me {
			continue
		}
		if C.MPI_Irecv(unsafe.Pointer(&all[q*answerLen]), answerLen, C.bs_type(0), C.int(q), tagAnswer, w.c, &req[2*q]) != C.MPI_SUCCESS ||
			C.MPI_Isend(query, queryLen, C.bs_type(0), C.int(q), tagQuery, w.c, &req[2*q+1]) != C.MPI_SUCCESS {
			continue
		}
		posted[q] = true
	}
	pending := 0
	for _, p := range posted {
		if p {
			pending++
		}
	}
	for deadline := time.Now().Add(wait); pending > 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for q := range n {
			if !posted[q] {
				continue
			}
			var flag C.int
			if C.bs_test(&req[2*q], &flag) != C.MPI_SUCCESS || flag == 0 {
				continue
			}
			b := all[q*answerLen : (q+1)*answerLen]
			if i := bytes.IndexByte(b, 0); i >= 0 {
				b = b[:i]
			}
			rep.answers[q] = string(b)
			posted[q] = false
			pending--
		}
	}
	for q := range n {
		if q != me && posted[q] {
			rep.silent = append(rep.silent, q)
		}
	}
	return rep
}

// board is the call board of the probe, nil without one.
func (m *mpiComm) board() *callBoard {
	if m.job == nil {
		return nil
	}
	return &m.job.calls
}

// probe asks the other ranks of the job what they do (StallError's Silent
// and Elsewhere): ok is false without the probe (no stall timeout, or no
// MPI_THREAD_MULTIPLE, which its answering goroutine needs).
func (m *mpiComm) probe(wait time.Duration) (peerReport, bool) {
	if m.job == nil {
		return peerReport{}, false
	}
	var r, s C.int
	C.MPI_Comm_rank(C.bs_world(), &r)
	C.MPI_Comm_size(C.bs_world(), &s)
	return m.job.probe(int(r), int(s), wait), true
}
