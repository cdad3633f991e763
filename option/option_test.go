package option_test

import (
	"errors"
	"testing"

	"github.com/bulksample/bulksample/option"
	"github.com/bulksample/bulksample/sampling"
)

// TestPublicName: an error a Validate of the module returns is an
// *option.Error to a caller outside the module, with its field's path.
func TestPublicName(t *testing.T) {
	err := (&sampling.SamplerOptions{Fanouts: []int{10, -7}}).Validate()
	var oe *option.Error
	if !errors.As(err, &oe) {
		t.Fatalf("errors.As(%v, *option.Error) = false", err)
	}
	if path, e := option.Field(option.Prefixed(err, "Sampler")); path != "Sampler.Fanouts[1]" || e == nil {
		t.Errorf("Field = %q, %v; want Sampler.Fanouts[1]", path, e)
	}
}
