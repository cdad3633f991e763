package dataset

// This file is a restricted reader of Python pickles, for the files of the
// Planetoid datasets (planetoid.go): protocol 2, as Python 2 wrote them, of
// scipy CSR matrices, numpy arrays and a defaultdict of adjacency lists.
//
// A pickle is a program for a small stack machine whose GLOBAL and REDUCE
// instructions import and call anything Python can name. Nothing here is
// executed: GLOBAL accepts only the names in pickleGlobals (the classes and
// the one function these files use), anything else is an error naming the
// class, and REDUCE, NEWOBJ and BUILD only record their operands in a
// pyObject, which the Planetoid decoder then reads as data. Only the
// binary opcodes of protocols 1 and 2 that hold data are implemented; the
// text forms of protocol 0, persistent ids, extension codes and INST/OBJ
// are errors naming the opcode.
//
// Every length a pickle declares is checked against the bytes that remain
// before anything is allocated, and what the machine builds is charged to
// a budget in proportion to the file (pickleBytesPerByte per byte of it,
// plus pickleBaseBytes; the charges are what the Go values cost: stack and
// container slots, boxed numbers, dict and memo entries): a pickle that
// would build more is an error, so a file makes the reader hold at most
// that, plus the slack of Go's slice growth and garbage collector (a 32 MB
// pickle of DUP opcodes reached 1.91 GiB). Strings are not copied: they
// alias the file's bytes. A dict finds a string key by a hash computed
// once per string of the file (strKey), so that a long string used again
// and again as a key costs its length once, not at every use (a 2.1 MB
// ind.cora.graph that set one 1 MB key 275,000 times took 22-36 s, each
// doubling of the file 4 times longer). The load stops with its context's
// error (checked every pickleCheckEvery opcodes), and errors quote at most
// 64 bytes of the file (pyRepr). No input makes it panic (FuzzUnpickle).
//
// github.com/nlpodyssey/gopickle v0.2.0 was judged and not used: it resolves
// any unknown global to a generic object without error (and always accepts
// three globals of its own), allocates whatever length a string opcode
// declares (4 GiB for a 5-byte file), and panics on some inputs of one or
// two bytes (opcode 0xff, an empty LONG1, an odd SETITEMS). Those would have
// needed a fork; the subset these files need is shorter than the wrapper.

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

// Values on the pickle machine's stack:
//
//	nil                None
//	bool, int64, float64
//	string             str (Python 2's byte strings, kept as the bytes) and unicode (UTF-8)
//	pyTuple            tuple
//	*pyList, *pyDict   list, dict (pointers: the memo and the stack share them)
//	pyGlobal           an accepted class or function (pickleGlobals)
//	*pyObject          what REDUCE or NEWOBJ made of an accepted global, with BUILD's state
type (
	pyTuple []any
	pyList  struct{ items []any }
	// pyDict is a dict with int or str keys, in insertion order: vals[i]
	// is keys[i]'s value. The unpickler indexes it while it builds it
	// (dictIndex); get is for the few lookups of the decoders.
	pyDict struct {
		keys []any
		vals []any
	}
	pyGlobal struct{ module, name string }
	pyObject struct {
		class pyGlobal // the class made, or the function called
		args  pyTuple
		state any
		built bool // BUILD has given it its state
	}
)

func (g pyGlobal) String() string { return g.module + "." + g.name }

// get returns d[k] for a str key k.
func (d *pyDict) get(k string) (any, bool) {
	for i, key := range d.keys {
		if s, ok := key.(string); ok && s == k {
			return d.vals[i], true
		}
	}
	return nil, false
}

// dictKey is a dict key as an index holds it: an int, or the hash of a
// str (strKey), whose entries the index then compares.
type dictKey struct {
	str bool
	v   uint64
}

// dictIndex finds the entries of a dict being built by their keys.
type dictIndex struct {
	first map[dictKey]int32   // the first entry of each key
	more  map[dictKey][]int32 // further entries of a hash that another str has too
}

// strID is a string of the machine by where its bytes are: a substring of
// the file (strings alias it), or a literal of the code.
type strID struct {
	p *byte
	n int
}

// strEntry is what strKey knows of a string: its hash, and the string of
// equal contents that stands for it in the dicts (the first one seen), so
// that every later comparison of the two is one of pointers.
type strEntry struct {
	h     uint64
	canon string
}

// Accepted globals. The modules are those Python 2 wrote (numpy.core,
// scipy.sparse.csr, __builtin__) and their later names (numpy._core,
// scipy.sparse._csr, builtins), which re-pickled copies of the files use.
var (
	globalCSRMatrix   = pyGlobal{"scipy.sparse.csr", "csr_matrix"}
	globalReconstruct = pyGlobal{"numpy.core.multiarray", "_reconstruct"}
	globalNDArray     = pyGlobal{"numpy", "ndarray"}
	globalDtype       = pyGlobal{"numpy", "dtype"}
	globalDefaultDict = pyGlobal{"collections", "defaultdict"}
	globalList        = pyGlobal{"__builtin__", "list"}
)

// pickleGlobals maps every accepted (module, name) to its canonical global.
func pickleGlobals(g pyGlobal) (pyGlobal, bool) {
	switch g {
	case globalCSRMatrix, pyGlobal{"scipy.sparse._csr", "csr_matrix"}:
		return globalCSRMatrix, true
	case globalReconstruct, pyGlobal{"numpy._core.multiarray", "_reconstruct"}:
		return globalReconstruct, true
	case globalNDArray, globalDtype, globalDefaultDict:
		return g, true
	case globalList, pyGlobal{"builtins", "list"}:
		return globalList, true
	}
	return pyGlobal{}, false
}

// acceptedGlobals names the accepted globals for error messages.
const acceptedGlobals = "scipy.sparse.csr.csr_matrix, numpy.core.multiarray._reconstruct, numpy.ndarray, numpy.dtype, " +
	"collections.defaultdict and __builtin__.list"

// pickleOpNames names the opcodes an error may mention.
var pickleOpNames = map[byte]string{
	'(': "MARK", '.': "STOP", '0': "POP", '1': "POP_MARK", '2': "DUP", 'F': "FLOAT", 'I': "INT", 'J': "BININT",
	'K': "BININT1", 'L': "LONG", 'M': "BININT2", 'N': "NONE", 'P': "PERSID", 'Q': "BINPERSID", 'R': "REDUCE",
	'S': "STRING", 'T': "BINSTRING", 'U': "SHORT_BINSTRING", 'V': "UNICODE", 'X': "BINUNICODE", 'a': "APPEND",
	'b': "BUILD", 'c': "GLOBAL", 'd': "DICT", '}': "EMPTY_DICT", 'e': "APPENDS", 'g': "GET", 'h': "BINGET",
	'i': "INST", 'j': "LONG_BINGET", 'l': "LIST", ']': "EMPTY_LIST", 'o': "OBJ", 'p': "PUT", 'q': "BINPUT",
	'r': "LONG_BINPUT", 's': "SETITEM", 't': "TUPLE", ')': "EMPTY_TUPLE", 'u': "SETITEMS", 'G': "BINFLOAT",
	0x80: "PROTO", 0x81: "NEWOBJ", 0x82: "EXT1", 0x83: "EXT2", 0x84: "EXT4", 0x85: "TUPLE1", 0x86: "TUPLE2",
	0x87: "TUPLE3", 0x88: "NEWTRUE", 0x89: "NEWFALSE", 0x8a: "LONG1", 0x8b: "LONG4",
}

// The budget of one unpickle: pickleBytesPerByte bytes of Go values per
// byte of the file, plus pickleBaseBytes. The Planetoid files need at most
// about 9 (ind.*.graph: a list slot and a boxed int per 3-byte BININT2).
const (
	pickleBytesPerByte = 16
	pickleBaseBytes    = 1 << 20
	pickleCheckEvery   = 1 << 14 // opcodes between checks of the context
	// pickleMaxStack bounds the machine's stack: Python's pickler builds
	// containers 1,000 items at a time (APPENDS, SETITEMS), and the stacks
	// of the Planetoid files stay below 2,100 values; a pickle of DUP
	// opcodes would otherwise spend its whole budget on one slice.
	pickleMaxStack = 1 << 20
)

// What the budget charges for the values the machine builds: a slot of a
// stack, list, tuple or object (an interface, 16 bytes), a boxed number, a
// dict entry with its index entry, a memo entry, a dict, an object, a
// global, and a str key's entries in strKey's tables.
const (
	costSlot   = 16
	costBox    = 8
	costEntry  = 2*costSlot + 24
	costMemo   = 48
	costDict   = 96
	costObject = 80
	costGlobal = 32
	costStrKey = 96
)

// unpickler is the state of one unpickle call.
type unpickler struct {
	ctx   context.Context
	data  []byte
	pos   int   // next byte to read
	op    int   // offset of the opcode being run, for errors
	stack []any // the machine's stack
	marks []int // stack heights at each MARK
	memo  map[uint32]any
	// The budget (see pickleBytesPerByte): spent so far, the most, and
	// the highest the stack has been (its slots are charged once).
	spent, limit int64
	stackTop     int
	// The indexes of the dicts being built, strKey's tables, and the bytes
	// of strings strKey hashed (at most the file's: each string once).
	hashed int64
	index  map[*pyDict]*dictIndex
	seed   maphash.Seed
	strs   map[strID]strEntry
	intern map[uint64][]string
}

// unpickle runs the pickle in data and returns the object it leaves (the
// argument of STOP). Strings in the result alias data, which must not
// change while they are used. Errors give the byte offset of the opcode at
// fault and wrap ErrFormat, or are ctx's error once ctx is done; the
// caller adds the file name.
func unpickle(ctx context.Context, data []byte) (any, error) {
	return newUnpickler(ctx, data).run()
}

func newUnpickler(ctx context.Context, data []byte) *unpickler {
	return &unpickler{ctx: ctx, data: data, memo: map[uint32]any{},
		limit: pickleBytesPerByte*int64(len(data)) + pickleBaseBytes,
		index: map[*pyDict]*dictIndex{}, seed: maphash.MakeSeed(), strs: map[strID]strEntry{}, intern: map[uint64][]string{}}
}

// run is unpickle.
func (u *unpickler) run() (any, error) {
	for ops := 1; ; ops++ {
		if u.pos >= len(u.data) {
			return nil, fmt.Errorf("%w: truncated: the pickle ends at byte %d without STOP", ErrFormat, len(u.data))
		}
		if ops%pickleCheckEvery == 0 {
			if err := u.ctx.Err(); err != nil {
				return nil, err
			}
		}
		u.op = u.pos
		op := u.data[u.pos]
		u.pos++
		if op == '.' { // STOP
			if len(u.marks) > 0 {
				return nil, u.errf("STOP inside a MARK")
			}
			if len(u.stack) != 1 {
				return nil, u.errf("STOP with %d values on the stack, want 1", len(u.stack))
			}
			return u.stack[0], nil
		}
		if err := u.step(op); err != nil {
			return nil, err
		}
		if len(u.stack) > pickleMaxStack {
			return nil, u.errf("a stack of more than %d values: a pickle of no Planetoid file", pickleMaxStack)
		}
		if u.spent > u.limit {
			return nil, u.errf("the values it builds exceed %d bytes, %d per byte of this %d-byte file plus %d: a pickle of no Planetoid file",
				u.limit, pickleBytesPerByte, len(u.data), pickleBaseBytes)
		}
	}
}

// spend charges n bytes to the budget; unpickle checks it after each
// opcode.
func (u *unpickler) spend(n int) { u.spent += int64(n) }

// strKey returns the hash of the str s as a dict key and the string of its
// contents that the dicts hold, computing the hash once per string of the
// file: later uses of the same string (BINGET, DUP) cost a lookup by its
// address, not its length.
func (u *unpickler) strKey(s string) (uint64, string) {
	id := strID{unsafe.StringData(s), len(s)}
	if e, ok := u.strs[id]; ok {
		return e.h, e.canon
	}
	h := maphash.String(u.seed, s)
	u.hashed += int64(len(s))
	canon := s
	found := false
	for _, c := range u.intern[h] {
		if c == s {
			canon, found = c, true
			break
		}
	}
	if !found {
		u.intern[h] = append(u.intern[h], s)
	}
	u.strs[id] = strEntry{h, canon}
	u.spend(costStrKey)
	return h, canon
}

// setItem sets d[k] = v; k must be an int or a str.
func (u *unpickler) setItem(d *pyDict, k, v any) error {
	var dk dictKey
	switch kv := k.(type) {
	case int64:
		dk = dictKey{false, uint64(kv)}
	case string:
		h, canon := u.strKey(kv)
		dk, k = dictKey{true, h}, canon
	default:
		return fmt.Errorf("a dict key of type %s (only int and str keys are read)", pyTypeName(k))
	}
	ix := u.index[d]
	if ix == nil {
		ix = &dictIndex{first: map[dictKey]int32{}}
		u.index[d] = ix
	}
	same := func(i int32) bool { return sameKey(d.keys[i], k) }
	if i, ok := ix.first[dk]; ok {
		if same(i) {
			d.vals[i] = v
			return nil
		}
		for _, j := range ix.more[dk] {
			if same(j) {
				d.vals[j] = v
				return nil
			}
		}
		if ix.more == nil {
			ix.more = map[dictKey][]int32{}
		}
		ix.more[dk] = append(ix.more[dk], int32(len(d.keys)))
	} else {
		ix.first[dk] = int32(len(d.keys))
	}
	if len(d.keys) == math.MaxInt32 {
		return fmt.Errorf("a dict of more than %d keys", math.MaxInt32)
	}
	d.keys, d.vals = append(d.keys, k), append(d.vals, v)
	u.spend(costEntry)
	return nil
}

// sameKey reports whether the dict keys a and b (int64 or canonical str)
// are equal: strs of equal contents share their bytes (strKey), so the
// comparison is of addresses.
func sameKey(a, b any) bool {
	switch a := a.(type) {
	case int64:
		b, ok := b.(int64)
		return ok && a == b
	case string:
		b, ok := b.(string)
		return ok && len(a) == len(b) && (unsafe.StringData(a) == unsafe.StringData(b) || a == b)
	}
	return false
}

func (u *unpickler) errf(format string, a ...any) error {
	return fmt.Errorf("%w: pickle byte %d: %s", ErrFormat, u.op, fmt.Sprintf(format, a...))
}

// step runs the opcode op, whose arguments follow u.pos.
func (u *unpickler) step(op byte) error {
	switch op {
	case 0x80: // PROTO
		b, err := u.read(1)
		if err != nil {
			return err
		}
		if b[0] > 2 {
			return u.errf("pickle protocol %d; these files are protocol 2 (Python 2's pickle.dump with protocol 2)", b[0])
		}
	case '(': // MARK
		u.marks = append(u.marks, len(u.stack))
		u.spend(costBox)
	case '0': // POP
		if len(u.marks) > 0 && u.marks[len(u.marks)-1] == len(u.stack) {
			u.marks = u.marks[:len(u.marks)-1] // pops the mark, as Python does
			return nil
		}
		_, err := u.pop()
		return err
	case '1': // POP_MARK
		_, err := u.popMark()
		return err
	case '2': // DUP
		v, err := u.top()
		if err != nil {
			return err
		}
		u.push(v)
	case 'N':
		u.push(nil)
	case 0x88:
		u.push(true)
	case 0x89:
		u.push(false)
	case 'J': // BININT
		b, err := u.read(4)
		if err != nil {
			return err
		}
		u.pushInt(int64(int32(binary.LittleEndian.Uint32(b))))
	case 'K': // BININT1
		b, err := u.read(1)
		if err != nil {
			return err
		}
		u.pushInt(int64(b[0]))
	case 'M': // BININT2
		b, err := u.read(2)
		if err != nil {
			return err
		}
		u.pushInt(int64(binary.LittleEndian.Uint16(b)))
	case 0x8a: // LONG1: little-endian two's complement of n bytes
		b, err := u.read(1)
		if err != nil {
			return err
		}
		b, err = u.read(int64(b[0]))
		if err != nil {
			return err
		}
		v, err := u.long(b)
		if err != nil {
			return err
		}
		u.pushInt(v)
	case 'G': // BINFLOAT, big-endian
		b, err := u.read(8)
		if err != nil {
			return err
		}
		u.push(math.Float64frombits(binary.BigEndian.Uint64(b)))
		u.spend(costBox)
	case 'U': // SHORT_BINSTRING
		b, err := u.read(1)
		if err != nil {
			return err
		}
		return u.pushString(int64(b[0]))
	case 'T': // BINSTRING: signed 32-bit length
		b, err := u.read(4)
		if err != nil {
			return err
		}
		return u.pushString(int64(int32(binary.LittleEndian.Uint32(b))))
	case 'X': // BINUNICODE: UTF-8, unsigned 32-bit length
		b, err := u.read(4)
		if err != nil {
			return err
		}
		return u.pushString(int64(binary.LittleEndian.Uint32(b)))
	case ')':
		u.push(pyTuple{})
		u.spend(costSlot)
	case 0x85, 0x86, 0x87: // TUPLE1, TUPLE2, TUPLE3
		n := int(op - 0x84)
		if len(u.stack)-u.floor() < n {
			return u.errf("%s with %d values above the mark", pickleOpNames[op], len(u.stack)-u.floor())
		}
		t := slices.Clone(u.stack[len(u.stack)-n:])
		u.stack = u.stack[:len(u.stack)-n]
		u.push(pyTuple(t))
		u.spend(costSlot*n + 24)
	case 't': // TUPLE
		items, err := u.popMark()
		if err != nil {
			return err
		}
		u.push(pyTuple(items))
	case ']':
		u.push(&pyList{})
		u.spend(costGlobal)
	case 'l': // LIST
		items, err := u.popMark()
		if err != nil {
			return err
		}
		u.push(&pyList{items: items})
	case 'a', 'e': // APPEND, APPENDS
		var items []any
		if op == 'a' {
			v, err := u.pop()
			if err != nil {
				return err
			}
			items = []any{v}
		} else {
			var err error
			if items, err = u.popMark(); err != nil {
				return err
			}
		}
		v, err := u.top()
		if err != nil {
			return err
		}
		l, ok := v.(*pyList)
		if !ok {
			return u.errf("%s to a %s, not a list", pickleOpNames[op], pyTypeName(v))
		}
		l.items = append(l.items, items...)
		u.spend(costSlot * len(items))
	case '}':
		u.push(&pyDict{})
		u.spend(costDict)
	case 'd', 's', 'u': // DICT, SETITEM, SETITEMS
		var items []any
		if op == 's' {
			if len(u.stack)-u.floor() < 2 {
				return u.errf("SETITEM without a key and a value")
			}
			items = slices.Clone(u.stack[len(u.stack)-2:])
			u.stack = u.stack[:len(u.stack)-2]
		} else {
			var err error
			if items, err = u.popMark(); err != nil {
				return err
			}
		}
		if len(items)%2 != 0 {
			return u.errf("%s with an odd number (%d) of keys and values", pickleOpNames[op], len(items))
		}
		var d *pyDict
		if op == 'd' {
			d = &pyDict{}
			u.push(d)
			u.spend(costDict)
		} else {
			v, err := u.top()
			if err != nil {
				return err
			}
			var ok bool
			if d, ok = v.(*pyDict); !ok {
				return u.errf("%s on a %s, not a dict", pickleOpNames[op], pyTypeName(v))
			}
		}
		for i := 0; i < len(items); i += 2 {
			if err := u.setItem(d, items[i], items[i+1]); err != nil {
				return u.errf("%s: %v", pickleOpNames[op], err)
			}
		}
	case 'c': // GLOBAL: "module\nname\n"
		module, err := u.line()
		if err != nil {
			return err
		}
		name, err := u.line()
		if err != nil {
			return err
		}
		g, ok := pickleGlobals(pyGlobal{module, name})
		if !ok {
			return u.errf("class %s is not one that Planetoid files use (%s); nothing from a pickle is run",
				truncate(pyGlobal{module, name}.String(), maxQuote), acceptedGlobals)
		}
		u.push(g)
		u.spend(costGlobal)
	case 'R', 0x81: // REDUCE, NEWOBJ: callable (or class) and argument tuple
		args, err := u.pop()
		if err != nil {
			return err
		}
		f, err := u.pop()
		if err != nil {
			return err
		}
		t, ok := args.(pyTuple)
		if !ok {
			return u.errf("%s with arguments of type %s, not a tuple", pickleOpNames[op], pyTypeName(args))
		}
		g, ok := f.(pyGlobal)
		if !ok {
			return u.errf("%s of a %s, not a class", pickleOpNames[op], pyTypeName(f))
		}
		v, err := u.construct(op, g, t)
		if err != nil {
			return err
		}
		u.push(v)
		u.spend(costObject)
	case 'b': // BUILD
		state, err := u.pop()
		if err != nil {
			return err
		}
		v, err := u.top()
		if err != nil {
			return err
		}
		o, ok := v.(*pyObject)
		if !ok || o.built {
			return u.errf("BUILD of a %s", pyTypeName(v))
		}
		o.state, o.built = state, true
	case 'q', 'r': // BINPUT, LONG_BINPUT
		i, err := u.memoIndex(op == 'r')
		if err != nil {
			return err
		}
		v, err := u.top()
		if err != nil {
			return err
		}
		if _, ok := u.memo[i]; !ok {
			u.spend(costMemo)
		}
		u.memo[i] = v
	case 'h', 'j': // BINGET, LONG_BINGET
		i, err := u.memoIndex(op == 'j')
		if err != nil {
			return err
		}
		v, ok := u.memo[i]
		if !ok {
			return u.errf("%s %d of a memo entry never stored", pickleOpNames[op], i)
		}
		u.push(v)
	default:
		if name, ok := pickleOpNames[op]; ok {
			return u.errf("opcode %s is not one these files use", name)
		}
		return u.errf("unknown opcode 0x%02x", op)
	}
	return nil
}

// construct is REDUCE or NEWOBJ of the accepted global g with args: it
// records them, calling nothing. defaultdict(list) is a dict.
func (u *unpickler) construct(op byte, g pyGlobal, args pyTuple) (any, error) {
	switch g {
	case globalDefaultDict:
		if len(args) > 1 || len(args) == 1 && args[0] != nil && args[0] != globalList {
			return nil, u.errf("collections.defaultdict with arguments %s, want (list)", describeTuple(args))
		}
		return &pyDict{}, nil
	case globalReconstruct:
		if len(args) != 3 || args[0] != globalNDArray {
			return nil, u.errf("%s with arguments %s, want (numpy.ndarray, shape, 'b')", g, describeTuple(args))
		}
		return &pyObject{class: globalNDArray, args: args}, nil
	case globalCSRMatrix, globalDtype:
		return &pyObject{class: g, args: args}, nil
	}
	return nil, u.errf("%s of %s, which these files only name as an argument", pickleOpNames[op], g)
}

// read returns the next n bytes of the pickle, or an error when fewer
// remain: nothing is allocated for a length the file cannot hold.
func (u *unpickler) read(n int64) ([]byte, error) {
	if n < 0 || n > int64(len(u.data)-u.pos) {
		return nil, u.errf("truncated: %s needs %d bytes, %d remain", pickleOpNames[u.data[u.op]], n, len(u.data)-u.pos)
	}
	b := u.data[u.pos : u.pos+int(n)]
	u.pos += int(n)
	return b, nil
}

// pushString pushes the next n bytes as a string, which aliases them.
func (u *unpickler) pushString(n int64) error {
	if n < 0 {
		return u.errf("string of negative length %d", n)
	}
	b, err := u.read(n)
	if err != nil {
		return err
	}
	u.push(unsafe.String(unsafe.SliceData(b), len(b)))
	u.spend(costSlot) // the string's header, boxed
	return nil
}

// line returns the text up to the next newline (GLOBAL's arguments).
func (u *unpickler) line() (string, error) {
	rest := u.data[u.pos:]
	i := slices.Index(rest, '\n')
	if i < 0 {
		return "", u.errf("truncated: GLOBAL's name has no end of line")
	}
	u.pos += i + 1
	return string(rest[:i]), nil
}

// long decodes LONG1's little-endian two's complement bytes.
func (u *unpickler) long(b []byte) (int64, error) {
	if len(b) > 8 {
		return 0, u.errf("LONG1 of %d bytes does not fit 64 bits", len(b))
	}
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	if n := uint(len(b)) * 8; n > 0 && n < 64 && b[len(b)-1]&0x80 != 0 {
		v |= ^uint64(0) << n // sign-extend
	}
	return int64(v), nil
}

func (u *unpickler) memoIndex(long bool) (uint32, error) {
	if !long {
		b, err := u.read(1)
		if err != nil {
			return 0, err
		}
		return uint32(b[0]), nil
	}
	b, err := u.read(4)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

// push pushes v; the budget pays for each slot once, when the stack first
// reaches it.
func (u *unpickler) push(v any) {
	u.stack = append(u.stack, v)
	if len(u.stack) > u.stackTop {
		u.stackTop = len(u.stack)
		u.spend(costSlot)
	}
}

// pushInt pushes v, whose box costs the budget unless Go keeps it
// preallocated (0 to 255).
func (u *unpickler) pushInt(v int64) {
	u.push(v)
	if v < 0 || v > 255 {
		u.spend(costBox)
	}
}

// floor is the stack height of the innermost MARK (0 without one): the
// values below it belong to an enclosing construct.
func (u *unpickler) floor() int {
	if len(u.marks) == 0 {
		return 0
	}
	return u.marks[len(u.marks)-1]
}

func (u *unpickler) top() (any, error) {
	if len(u.stack) <= u.floor() {
		return nil, u.errf("%s on an empty stack", pickleOpNames[u.data[u.op]])
	}
	return u.stack[len(u.stack)-1], nil
}

func (u *unpickler) pop() (any, error) {
	v, err := u.top()
	if err == nil {
		u.stack = u.stack[:len(u.stack)-1]
	}
	return v, err
}

// popMark removes the innermost MARK and returns a copy of the values above it.
func (u *unpickler) popMark() ([]any, error) {
	if len(u.marks) == 0 {
		return nil, u.errf("%s without a MARK", pickleOpNames[u.data[u.op]])
	}
	m := u.marks[len(u.marks)-1]
	u.marks = u.marks[:len(u.marks)-1]
	items := slices.Clone(u.stack[m:])
	u.stack = u.stack[:m]
	return items, nil
}

// pyTypeName names the Python type of a stack value, for errors.
func pyTypeName(v any) string {
	switch v := v.(type) {
	case nil:
		return "None"
	case bool:
		return "bool"
	case int64:
		return "int"
	case float64:
		return "float"
	case string:
		return "str"
	case pyTuple:
		return "tuple"
	case *pyList:
		return "list"
	case *pyDict:
		return "dict"
	case pyGlobal:
		return "class " + v.String()
	case *pyObject:
		return v.class.String() + " object"
	}
	return fmt.Sprintf("%T", v)
}

// describeTuple lists the types of a tuple's items, for errors.
func describeTuple(t pyTuple) string {
	names := make([]string, len(t))
	for i, v := range t {
		names[i] = pyTypeName(v)
	}
	return "(" + strings.Join(names, ", ") + ")"
}

// maxQuote is the most bytes of the file an error quotes.
const maxQuote = 64

// pyRepr describes a value for errors in at most about maxQuote bytes: a
// number, a str (quoted, cut), a tuple's first items; the type otherwise.
// A 1 MB key was printed whole.
func pyRepr(v any) string {
	switch v := v.(type) {
	case nil:
		return "None"
	case bool:
		if v {
			return "True"
		}
		return "False"
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case string:
		if len(v) > maxQuote {
			return strconv.Quote(v[:maxQuote]) + fmt.Sprintf("... (%d bytes)", len(v))
		}
		return strconv.Quote(v)
	case pyTuple:
		var b strings.Builder
		b.WriteByte('(')
		for i, x := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			if b.Len() > maxQuote {
				fmt.Fprintf(&b, "... %d items", len(v))
				break
			}
			if t, ok := x.(pyTuple); ok {
				fmt.Fprintf(&b, "(%d items)", len(t))
			} else {
				b.WriteString(pyRepr(x))
			}
		}
		b.WriteByte(')')
		return b.String()
	}
	return pyTypeName(v)
}
