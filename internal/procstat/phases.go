package procstat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// PhaseCost is the accumulated cost of one named phase.
type PhaseCost struct {
	Name string
	Cost
}

// Phases lists the costs of a run's phases in the order they first ran. Its
// JSON form is an object keyed by phase name, in that order:
// {"load": {...}, "sample": {...}}.
type Phases []PhaseCost

// Add adds c to the phase called name, appending the phase if it is new.
func (p *Phases) Add(name string, c Cost) {
	for i := range *p {
		if (*p)[i].Name == name {
			(*p)[i].Cost.Add(c)
			return
		}
	}
	*p = append(*p, PhaseCost{Name: name, Cost: c})
}

// Get returns the cost of the phase called name, or the zero Cost.
func (p Phases) Get(name string) Cost {
	for _, pc := range p {
		if pc.Name == name {
			return pc.Cost
		}
	}
	return Cost{}
}

// Total returns the sum of all phases' costs.
func (p Phases) Total() Cost {
	var t Cost
	for _, pc := range p {
		t.Add(pc.Cost)
	}
	return t
}

// MarshalJSON writes the phases as one object keyed by name, in order.
func (p Phases) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, pc := range p {
		if i > 0 {
			b.WriteByte(',')
		}
		name, err := json.Marshal(pc.Name)
		if err != nil {
			return nil, err
		}
		c, err := json.Marshal(pc.Cost)
		if err != nil {
			return nil, err
		}
		b.Write(name)
		b.WriteByte(':')
		b.Write(c)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads the object MarshalJSON writes, keeping the order of
// its keys.
func (p *Phases) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errors.New("procstat: phases: want a JSON object of phase costs")
	}
	var out Phases
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return fmt.Errorf("procstat: phases: %w", err)
		}
		name, _ := t.(string)
		var c Cost
		if err := dec.Decode(&c); err != nil {
			return fmt.Errorf("procstat: phase %q: %w", name, err)
		}
		out = append(out, PhaseCost{Name: name, Cost: c})
	}
	*p = out
	return nil
}

// NoteThreshold is the share of a phase's time above which Note mentions
// the phase's page faults or GC: 5%.
const NoteThreshold = 0.05

// NoteMinSeconds is the least estimated time of faults or GC that Note
// mentions, so that a phase of microseconds with a handful of faults does
// not fill the progress lines.
const NoteMinSeconds = 0.001

// Note returns a short description of the costs that hide inside the span,
// for progress lines: its page faults when their estimated time
// (FaultSeconds) exceeds NoteThreshold of the span's time, and its GC when
// the GC's CPU time does; "" when neither does, or when the time is under
// NoteMinSeconds. For example
// "page faults 65536 minor (about 0.410 s in the kernel, 41%); GC 3 cycles, 12% (pauses 0.4 ms)".
func (c Cost) Note() string {
	var parts []string
	if f := c.FaultShare(); f > NoteThreshold && c.FaultSeconds() >= NoteMinSeconds {
		s := fmt.Sprintf("page faults %d minor", c.MinorFaults)
		if c.MajorFaults > 0 {
			s += fmt.Sprintf(", %d major", c.MajorFaults)
		}
		s += fmt.Sprintf(" (about %.3f s in the kernel, %.0f%%)", c.FaultSeconds(), 100*f)
		parts = append(parts, s)
	}
	if g := c.GCShare(); g > NoteThreshold && c.GCCPUSeconds >= NoteMinSeconds {
		cycles := "cycles"
		if c.GCCycles == 1 {
			cycles = "cycle"
		}
		parts = append(parts, fmt.Sprintf("GC %d %s, %.0f%% (pauses %.1f ms)", c.GCCycles, cycles, 100*g, c.GCPauseSeconds*1e3))
	}
	return strings.Join(parts, "; ")
}
