package dataset

// A reader of the subset of YAML that metadata files such as DGL's
// CSVDataset meta.yaml use: block mappings and block sequences by
// indentation (a sequence may sit at its key's indentation, as DGL writes
// "edge_data:\n- file_name: edges.csv"), sequence items that open a
// mapping on their own line, flow sequences of scalars ("[user, follow,
// user]"), plain, 'single'- and "double"-quoted scalars, and comments.
// Anything else (anchors, tags, flow mappings, multi-line scalars, several
// documents) is an error naming the line, not a misreading.

import (
	"fmt"
	"strings"
)

// yamlKind is the kind of a yamlNode.
type yamlKind int

const (
	yamlScalar yamlKind = iota
	yamlMap
	yamlSeq
)

// yamlNode is a parsed YAML value.
type yamlNode struct {
	kind   yamlKind
	line   int    // where the value starts, 1-based
	scalar string // yamlScalar; "" for an empty value
	null   bool   // yamlScalar without any text ("key:" and nothing under it)
	keys   []string
	values map[string]*yamlNode // yamlMap, in the order of keys
	items  []*yamlNode          // yamlSeq
}

// yamlLine is one line of content: its indentation and its text, the
// comment removed.
type yamlLine struct {
	num    int
	indent int
	text   string
}

type yamlParser struct {
	name  string
	lines []yamlLine
	pos   int
}

// maxYAMLBytes bounds a metadata file.
const maxYAMLBytes = 1 << 20

// parseYAML parses the document src of the file name.
func parseYAML(name string, src []byte) (*yamlNode, error) {
	if len(src) > maxYAMLBytes {
		return nil, fmt.Errorf("%s: %w: %d bytes; a metadata file of more than %d is not one", name, ErrFormat, len(src), maxYAMLBytes)
	}
	p := &yamlParser{name: name}
	for i, raw := range strings.Split(string(src), "\n") {
		num := i + 1
		raw = strings.TrimRight(raw, "\r")
		body := strings.TrimLeft(raw, " ")
		if strings.HasPrefix(body, "\t") {
			return nil, p.errAt(num, "a tab in the indentation (YAML indents with spaces)")
		}
		text, err := stripYAMLComment(body)
		if err != nil {
			return nil, p.errAt(num, "%v", err)
		}
		text = strings.TrimRight(text, " \t")
		switch {
		case text == "":
			continue
		case text == "---" && len(p.lines) == 0:
			continue
		case text == "---" || text == "...":
			return nil, p.errAt(num, "%q: one document only", text)
		}
		p.lines = append(p.lines, yamlLine{num: num, indent: len(raw) - len(body), text: text})
	}
	if len(p.lines) == 0 {
		return &yamlNode{kind: yamlMap, line: 1, values: map[string]*yamlNode{}}, nil
	}
	root, err := p.block(p.lines[0].indent)
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.lines) {
		return nil, p.errAt(p.lines[p.pos].num, "indentation %d does not continue the value above it", p.lines[p.pos].indent)
	}
	return root, nil
}

func (p *yamlParser) errAt(line int, format string, a ...any) error {
	return fmt.Errorf("%s: line %d: %w: %s", p.name, line, ErrFormat, fmt.Sprintf(format, a...))
}

// stripYAMLComment removes a comment ('#' at the start or after a space,
// outside quotes) from a line.
func stripYAMLComment(s string) (string, error) {
	opens := func(i int) bool { return i == 0 || strings.ContainsRune(" [,:-", rune(s[i-1])) }
	end := len(s)
	err := scanUnquoted(s, opens, func(i int) bool {
		if s[i] == '#' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t') {
			end = i
			return true
		}
		return false
	})
	return s[:end], err
}

// scanUnquoted calls at with the index of each byte of s outside quoted
// strings, in order, until it returns true. A quote at index i opens a
// string when opens(i); a double-quoted string may escape its quote with a
// backslash, a single-quoted one doubles it (which scans as two strings).
// An unterminated string is an error.
func scanUnquoted(s string, opens func(i int) bool, at func(i int) bool) error {
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case (c == '\'' || c == '"') && opens(i):
			quote = c
		case at(i):
			return nil
		}
	}
	if quote != 0 {
		return fmt.Errorf("unterminated %c-quoted string", quote)
	}
	return nil
}

func isSeqItem(text string) bool { return text == "-" || strings.HasPrefix(text, "- ") }

// block parses the value whose lines start at indentation indent.
func (p *yamlParser) block(indent int) (*yamlNode, error) {
	l := p.lines[p.pos]
	if isSeqItem(l.text) {
		return p.sequence(indent)
	}
	if _, _, ok := splitYAMLKey(l.text); !ok {
		// A lone scalar (the whole document, or a value on its own line).
		p.pos++
		return p.scalar(l.num, l.text)
	}
	return p.mapping(indent)
}

func (p *yamlParser) sequence(indent int) (*yamlNode, error) {
	seq := &yamlNode{kind: yamlSeq, line: p.lines[p.pos].num}
	for p.pos < len(p.lines) && p.lines[p.pos].indent == indent && isSeqItem(p.lines[p.pos].text) {
		l := p.lines[p.pos]
		rest := strings.TrimLeft(strings.TrimPrefix(l.text, "-"), " ")
		var item *yamlNode
		var err error
		switch {
		case rest == "":
			p.pos++
			item, err = p.nested(indent, l.num, false)
		case isSeqItem(rest):
			// "- - a": a sequence in a sequence, at the column of the inner dash.
			p.lines[p.pos] = yamlLine{num: l.num, indent: indent + len(l.text) - len(rest), text: rest}
			item, err = p.sequence(p.lines[p.pos].indent)
		case isMappingStart(rest):
			// "- key: value" opens a mapping at the column of key.
			p.lines[p.pos] = yamlLine{num: l.num, indent: indent + len(l.text) - len(rest), text: rest}
			item, err = p.mapping(p.lines[p.pos].indent)
		default:
			p.pos++
			item, err = p.scalar(l.num, rest)
		}
		if err != nil {
			return nil, err
		}
		seq.items = append(seq.items, item)
	}
	return seq, nil
}

// isMappingStart reports whether a sequence item's text opens a mapping.
func isMappingStart(text string) bool {
	if isSeqItem(text) {
		return false
	}
	_, _, ok := splitYAMLKey(text)
	return ok
}

func (p *yamlParser) mapping(indent int) (*yamlNode, error) {
	m := &yamlNode{kind: yamlMap, line: p.lines[p.pos].num, values: map[string]*yamlNode{}}
	for p.pos < len(p.lines) && p.lines[p.pos].indent == indent && !isSeqItem(p.lines[p.pos].text) {
		l := p.lines[p.pos]
		key, rest, ok := splitYAMLKey(l.text)
		if !ok {
			return nil, p.errAt(l.num, "%q: want key: value", truncate(l.text, 60))
		}
		if _, dup := m.values[key]; dup {
			return nil, p.errAt(l.num, "key %q appears twice", key)
		}
		var v *yamlNode
		var err error
		if rest == "" {
			p.pos++
			v, err = p.nested(indent, l.num, true)
		} else {
			p.pos++
			v, err = p.scalar(l.num, rest)
		}
		if err != nil {
			return nil, err
		}
		m.keys = append(m.keys, key)
		m.values[key] = v
	}
	if p.pos < len(p.lines) && p.lines[p.pos].indent > indent {
		return nil, p.errAt(p.lines[p.pos].num, "indentation %d under a key that has a value", p.lines[p.pos].indent)
	}
	return m, nil
}

// nested parses the value of a key (or sequence item) that ended its line
// at indentation indent: a block indented further, a sequence at the same
// indentation (for a key, seqSame), or nothing.
func (p *yamlParser) nested(indent, line int, seqSame bool) (*yamlNode, error) {
	if p.pos < len(p.lines) {
		next := p.lines[p.pos]
		if next.indent > indent || seqSame && next.indent == indent && isSeqItem(next.text) {
			return p.block(next.indent)
		}
	}
	return &yamlNode{kind: yamlScalar, line: line, null: true}, nil
}

// splitYAMLKey splits "key: value" (or "key:") at its first ": " outside
// quotes; the key may be quoted.
func splitYAMLKey(text string) (key, rest string, ok bool) {
	if text == "" || text[0] == '[' || text[0] == '{' {
		return "", "", false
	}
	i := 0
	if text[0] == '\'' || text[0] == '"' {
		end := strings.IndexByte(text[1:], text[0])
		if end < 0 {
			return "", "", false
		}
		i = end + 2
		key = text[1 : end+1]
	}
	for j := i; j < len(text); j++ {
		if text[j] == ':' && (j+1 == len(text) || text[j+1] == ' ') {
			if i == 0 {
				key = strings.TrimSpace(text[:j])
			} else if strings.TrimSpace(text[i:j]) != "" {
				return "", "", false
			}
			return key, strings.TrimSpace(text[j+1:]), key != "" || i > 0
		}
	}
	return "", "", false
}

// scalar parses a value written on one line: a flow sequence of scalars,
// a quoted or a plain scalar.
func (p *yamlParser) scalar(line int, text string) (*yamlNode, error) {
	switch text[0] {
	case '[':
		if !strings.HasSuffix(text, "]") {
			return nil, p.errAt(line, "flow sequence %q does not end with ] on its line", truncate(text, 60))
		}
		seq := &yamlNode{kind: yamlSeq, line: line}
		inner := strings.TrimSpace(text[1 : len(text)-1])
		if inner == "" {
			return seq, nil
		}
		parts, err := splitFlow(inner)
		if err != nil {
			return nil, p.errAt(line, "%v", err)
		}
		for _, part := range parts {
			if part == "" || part[0] == '[' || part[0] == '{' {
				return nil, p.errAt(line, "flow sequence %q: only scalars are supported inside it", truncate(text, 60))
			}
			s, err := p.scalar(line, part)
			if err != nil {
				return nil, err
			}
			seq.items = append(seq.items, s)
		}
		return seq, nil
	case '{':
		return nil, p.errAt(line, "flow mapping %q: write it as a block mapping, one key per line", truncate(text, 60))
	case '&', '*', '!', '|', '>', '@', '`':
		return nil, p.errAt(line, "%q: anchors, aliases, tags and multi-line scalars are not supported", truncate(text, 60))
	case '\'':
		if len(text) < 2 || text[len(text)-1] != '\'' {
			return nil, p.errAt(line, "%q: text after the closing quote", truncate(text, 60))
		}
		return &yamlNode{kind: yamlScalar, line: line, scalar: strings.ReplaceAll(text[1:len(text)-1], "''", "'")}, nil
	case '"':
		s, err := unquoteYAML(text)
		if err != nil {
			return nil, p.errAt(line, "%q: %v", truncate(text, 60), err)
		}
		return &yamlNode{kind: yamlScalar, line: line, scalar: s}, nil
	}
	if _, _, ok := splitYAMLKey(text); ok {
		return nil, p.errAt(line, "%q: a mapping on the line of its key; put it on the next lines, indented", truncate(text, 60))
	}
	return &yamlNode{kind: yamlScalar, line: line, scalar: text}, nil
}

// splitFlow splits the inside of a flow sequence at commas outside quotes.
func splitFlow(s string) ([]string, error) {
	var parts []string
	start := 0
	err := scanUnquoted(s, func(int) bool { return true }, func(i int) bool {
		if s[i] == ',' {
			parts = append(parts, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
		return false
	})
	if err != nil {
		return nil, err
	}
	return append(parts, strings.TrimSpace(s[start:])), nil
}

// unquoteYAML reads a double-quoted scalar with the escapes \\, \", \t,
// \n, \r, \0 and \/.
func unquoteYAML(text string) (string, error) {
	var b strings.Builder
	for i := 1; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '"':
			if i != len(text)-1 {
				return "", fmt.Errorf("text after the closing quote")
			}
			return b.String(), nil
		case c == '\\':
			if i+1 >= len(text) {
				return "", fmt.Errorf("a lone backslash")
			}
			i++
			switch text[i] {
			case '\\', '"', '/':
				b.WriteByte(text[i])
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case '0':
				b.WriteByte(0)
			default:
				return "", fmt.Errorf("escape \\%c is not supported", text[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", fmt.Errorf("no closing quote")
}

// get returns the value of key in the mapping n, nil when absent.
func (n *yamlNode) get(key string) *yamlNode {
	if n == nil || n.kind != yamlMap {
		return nil
	}
	return n.values[key]
}

// kindName names a node's kind for errors.
func (n *yamlNode) kindName() string {
	switch n.kind {
	case yamlMap:
		return "a mapping"
	case yamlSeq:
		return "a sequence"
	}
	if n.null {
		return "empty"
	}
	return fmt.Sprintf("the scalar %q", truncate(n.scalar, 40))
}
