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
// before anything is allocated, so a file can make the reader hold no more
// than a few times its own size; no input makes it panic (FuzzUnpickle).
//
// github.com/nlpodyssey/gopickle v0.2.0 was judged and not used: it resolves
// any unknown global to a generic object without error (and always accepts
// three globals of its own), allocates whatever length a string opcode
// declares (4 GiB for a 5-byte file), and panics on some inputs of one or
// two bytes (opcode 0xff, an empty LONG1, an odd SETITEMS). Those would have
// needed a fork; the subset these files need is shorter than the wrapper.

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
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
	// pyDict is a dict with int or str keys, in insertion order.
	pyDict struct {
		keys []any
		m    map[any]any
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

// set sets d[k] = v; k must be an int or a str.
func (d *pyDict) set(k, v any) error {
	switch k.(type) {
	case int64, string:
	default:
		return fmt.Errorf("a dict key of type %s (only int and str keys are read)", pyTypeName(k))
	}
	if d.m == nil {
		d.m = map[any]any{}
	}
	if _, ok := d.m[k]; !ok {
		d.keys = append(d.keys, k)
	}
	d.m[k] = v
	return nil
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

// unpickler is the state of one unpickle call.
type unpickler struct {
	data  []byte
	pos   int   // next byte to read
	op    int   // offset of the opcode being run, for errors
	stack []any // the machine's stack
	marks []int // stack heights at each MARK
	memo  map[uint32]any
}

// unpickle runs the pickle in data and returns the object it leaves (the
// argument of STOP). Errors give the byte offset of the opcode at fault and
// wrap ErrFormat; the caller adds the file name.
func unpickle(data []byte) (any, error) {
	u := &unpickler{data: data, memo: map[uint32]any{}}
	for {
		if u.pos >= len(u.data) {
			return nil, fmt.Errorf("%w: truncated: the pickle ends at byte %d without STOP", ErrFormat, len(u.data))
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
	}
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
		u.push(int64(int32(binary.LittleEndian.Uint32(b))))
	case 'K': // BININT1
		b, err := u.read(1)
		if err != nil {
			return err
		}
		u.push(int64(b[0]))
	case 'M': // BININT2
		b, err := u.read(2)
		if err != nil {
			return err
		}
		u.push(int64(binary.LittleEndian.Uint16(b)))
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
		u.push(v)
	case 'G': // BINFLOAT, big-endian
		b, err := u.read(8)
		if err != nil {
			return err
		}
		u.push(math.Float64frombits(binary.BigEndian.Uint64(b)))
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
	case 0x85, 0x86, 0x87: // TUPLE1, TUPLE2, TUPLE3
		n := int(op - 0x84)
		if len(u.stack)-u.floor() < n {
			return u.errf("%s with %d values above the mark", pickleOpNames[op], len(u.stack)-u.floor())
		}
		t := slices.Clone(u.stack[len(u.stack)-n:])
		u.stack = u.stack[:len(u.stack)-n]
		u.push(pyTuple(t))
	case 't': // TUPLE
		items, err := u.popMark()
		if err != nil {
			return err
		}
		u.push(pyTuple(items))
	case ']':
		u.push(&pyList{})
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
	case '}':
		u.push(&pyDict{})
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
			if err := d.set(items[i], items[i+1]); err != nil {
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
				pyGlobal{module, name}, acceptedGlobals)
		}
		u.push(g)
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

// pushString pushes the next n bytes as a string.
func (u *unpickler) pushString(n int64) error {
	if n < 0 {
		return u.errf("string of negative length %d", n)
	}
	b, err := u.read(n)
	if err != nil {
		return err
	}
	u.push(string(b))
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

func (u *unpickler) push(v any) { u.stack = append(u.stack, v) }

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
