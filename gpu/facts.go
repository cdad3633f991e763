package gpu

// Facts describe a GPU as this process opened it, for the record of a run
// (`bulksample device`, the device bundle's machine.txt): the device and
// driver, how long Open took (a JIT compile of the kernels shows there),
// the CUDA libraries with their versions and the dependencies loaded for
// them, every shared library the process then holds with the dynamic
// entries that decided how it was found, and what each kernel costs in
// registers and memory.
type Facts struct {
	Device            string  `json:"device"`
	ComputeCapability string  `json:"compute_capability"`
	Multiprocessors   int     `json:"multiprocessors"`
	MemoryBytes       int64   `json:"memory_bytes"`
	Driver            string  `json:"driver"`         // the libcuda loaded
	DriverVersion     int     `json:"driver_version"` // e.g. 13000 for CUDA 13.0
	OpenSeconds       float64 `json:"open_seconds"`   // Open in all: the context and the kernels
	ModuleSeconds     float64 `json:"module_seconds"` // of which loading the kernels' fatbin
	// The kernels' image: the SASS architectures it holds and the PTX's.
	Image    string         `json:"image"`
	CUSPARSE LibraryFacts   `json:"cusparse"`
	CUBLAS   LibraryFacts   `json:"cublas"`
	Loaded   []LoadedObject `json:"loaded"`
	Kernels  []KernelFacts  `json:"kernels"`
}

// LibraryFacts describe a CUDA library the device loaded (or the error
// that kept it from loading).
type LibraryFacts struct {
	Path     string   `json:"path,omitempty"`
	Version  int      `json:"version,omitempty"` // the library's own version call
	Deps     []string `json:"deps,omitempty"`    // dependencies loaded first, by path
	Features string   `json:"features,omitempty"`
	Error    string   `json:"error,omitempty"`
}

// LoadedObject is a shared library mapped into the process.
type LoadedObject struct {
	Path    string   `json:"path"`
	Version string   `json:"version,omitempty"` // the file name's suffix after ".so."
	Soname  string   `json:"soname,omitempty"`
	Needed  []string `json:"needed,omitempty"`
	Runpath string   `json:"runpath,omitempty"`
}

// KernelFacts are a kernel's attributes on the device.
type KernelFacts struct {
	Name               string `json:"name"`
	Registers          int    `json:"registers"`
	LocalBytes         int    `json:"local_bytes"`
	SharedBytes        int    `json:"shared_bytes"`
	ConstBytes         int    `json:"const_bytes"`
	MaxThreadsPerBlock int    `json:"max_threads_per_block"`
	PTXVersion         int    `json:"ptx_version"`
	BinaryVersion      int    `json:"binary_version"`
}
