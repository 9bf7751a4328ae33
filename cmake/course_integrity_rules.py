"""What a student's compiled objects may reference and define: the one place of each lesson's
allowlist, read by cmake/course_integrity.py (the lessonNN/<flavour>/integrity rows).

A student object is a kernel launcher: it launches kernels, copies and sets memory, asks the GPU
for attributes and occupancy, throws, and keeps what it needs in the C++ library's containers.
Everything else -- files, processes, the environment, clocks, threads, dynamic loading, a
library's kernels, the harness's measuring code, another lesson's code -- is refused by name.
So is defining anything but its own kernels and its lesson's functions: a definition of a C
library, C++ runtime or CUDA runtime function would replace the real one in the test's process.

Each rule is (regular expression, why). The expressions are matched against the symbol's name
as `nm -C` prints it (demangled), from its start.
"""

# --- References: what a student object may call or read (undefined symbols) -------------------

# The CUDA runtime calls a kernel launcher needs, and what nvcc's generated code calls.
CUDA_RUNTIME = [
    r"__cuda(RegisterFatBinary|RegisterFatBinaryEnd|UnregisterFatBinary|RegisterFunction"
    r"|RegisterVar|RegisterManagedVar|RegisterSurface|RegisterTexture|RegisterLinkedBinary\w*"
    r"|PushCallConfiguration|PopCallConfiguration|LaunchKernel|GetKernel|InitModule)$",
    r"cudaLaunch(Kernel|KernelExC|CooperativeKernel)(_ptsz|_v\d+)?$",
    r"cudaMemcpy(2D|3D)?(Async)?(_ptsz|_ptds)?$",
    r"cudaMemcpy(To|From)Symbol(Async)?(_ptsz|_ptds)?$",
    r"cudaMemset(2D|3D)?(Async)?(_ptsz|_ptds)?$",
    r"cudaMalloc(Async)?(_ptsz)?$",
    r"cudaFree(Async)?(_ptsz)?$",
    r"cudaFunc(SetAttribute|GetAttributes|SetCacheConfig|SetSharedMemConfig)$",
    r"cudaOccupancy\w+$",
    r"cudaGetDevice$",
    r"cudaDeviceGetAttribute$",
    r"cudaGetDeviceProperties(_v\d+)?$",
    r"cudaGet(Last|ErrorString|ErrorName)\w*$",
    r"cudaPeekAtLastError$",
    r"cudaGetSymbol(Address|Size)$",
    r"cudaStreamSynchronize(_ptsz)?$",
    r"cudaDeviceSynchronize$",
]

# The harness's student-facing API: errors, device buffers, the GPU's description, the TMA's
# tensor maps (course/tensor_map.hpp: the driver's encoder, which a student object may not look
# up itself). The PTX wrappers of course/ptx.cuh are inline device code: no host symbol.
HARNESS = [
    r"course::NotImplemented::",
    r"(typeinfo|typeinfo name|vtable) for course::NotImplemented$",
    r"course::throw_cuda_error\(",
    r"course::CudaError::",
    r"course::require\(",
    r"course::gpu_info\(\)",
    r"course::detail::device_(allocate|free)\(",
    r"course::encode_tensor_map\(",
]

# The C++ runtime and library: exceptions, strings, containers, algorithms, printing to the
# terminal (for debugging), and what the compiler's code calls.
CXX = [
    r"operator (new|delete)(\[\])?\(",
    r"__cxa_(allocate_exception|free_exception|throw|rethrow|begin_catch|end_catch|get_exception_ptr"
    r"|guard_acquire|guard_release|guard_abort|atexit|pure_virtual|deleted_virtual"
    r"|throw_bad_array_new_length|bad_cast|bad_typeid|call_unexpected)$",
    r"__gxx_personality_v0$",
    r"_Unwind_Resume$",
    r"__dso_handle$",
    r"_GLOBAL_OFFSET_TABLE_$",
    r"__stack_chk_fail$",
    r"atexit$",
    # nvcc's host stand-in for a __device__ function, should the host ever call it.
    r"exit$",
    r"std::__throw_\w+\(",
    r"std::(exception|bad_alloc|bad_array_new_length|logic_error|invalid_argument|domain_error"
    r"|length_error|out_of_range|runtime_error|range_error|overflow_error|underflow_error"
    r"|bad_cast|bad_function_call)::",
    r"(typeinfo|typeinfo name|vtable) for (std::(exception|bad_alloc|logic_error|invalid_argument"
    r"|domain_error|length_error|out_of_range|runtime_error|range_error|overflow_error"
    r"|underflow_error|bad_function_call)|__cxxabiv1::\w+)$",
    r"std::__cxx11::basic_string<",
    r"std::__cxx11::(to_string|stoi|stol|stoul|stoll|stoull|stof|stod)\(",
    r"std::__detail::(_Prime_rehash_policy|_List_node_base|__variant)",
    r"std::_Rb_tree_(increment|decrement|insert_and_rebalance|rebalance_for_erase)\(",
    r"std::_Hash_bytes\(",
    r"std::__cxx11::basic_(ostringstream|stringstream|istringstream|stringbuf)<",
    r"(VTT|vtable|construction vtable) for std::__cxx11::basic_(ostringstream|stringstream"
    r"|istringstream|stringbuf)<",
    r"std::basic_ostream<char, std::char_traits<char> >& std::(__ostream_insert|endl|flush)",
    r"std::basic_ostream<char, std::char_traits<char> >::(operator<<|put|write|flush|_M_insert)",
    r"std::ostream::(operator<<|put|write|flush|_M_insert)",
    r"std::(cout|cerr)$",
    r"std::ios_base::(Init::Init|Init::~Init|ios_base|~ios_base)\(",
    r"std::ios_base_library_init\(\)",  # what <iostream> calls with GCC 13 and newer
    r"std::basic_ios<char, std::char_traits<char> >::(init|clear)\(",
    r"std::locale::(locale|~locale|classic)\(",
    r"std::ctype<char>::_M_widen_init\(",
    r"(typeinfo|vtable) for std::(basic_streambuf|basic_ios|basic_ostream|ios_base)<?",
    # The C library's memory and string functions, formatting into a string, printing to the
    # terminal, and math.
    r"(memcpy|memmove|memset|memcmp|memchr|strlen|strnlen|strcmp|strncmp|strchr|strrchr|strstr)$",
    r"(v?snprintf|v?printf|puts|putchar|fputs|fputc|fflush|fwrite|v?fprintf)$",
    r"(stdout|stderr)$",
    r"__(v?f?printf|sprintf|snprintf|vsnprintf)_chk$",
    r"(std::)?(sqrt|cbrt|exp|exp2|expm1|log|log1p|log2|log10|pow|sin|cos|tan|asin|acos|atan|atan2"
    r"|sinh|cosh|tanh|floor|ceil|round|lround|llround|trunc|rint|lrint|nearbyint|fmod|remainder"
    r"|fabs|fmin|fmax|fma|ldexp|frexp|modf|hypot|erf|erfc|tgamma|lgamma|nan|copysign|ilogb|logb"
    r"|scalbn)[fl]?(\(|$)",
    r"__(isnan|isinf|finite|fpclassify|signbit)[fl]?$",
]

COMMON_REFERENCES = CUDA_RUNTIME + HARNESS + CXX

# What a lesson's own exercises need beyond the common list: only lesson 06 teaches streams,
# events and host memory.
LESSON_REFERENCES = {
    "06": [
        r"cudaStream(Create|CreateWithFlags|CreateWithPriority|Destroy|WaitEvent|Query)(_ptsz)?$",
        r"cudaEvent(Create|CreateWithFlags|Destroy|Record|RecordWithFlags|Synchronize|Query)"
        r"(_ptsz)?$",
        r"cuda(HostAlloc|MallocHost|FreeHost|HostGetDevicePointer|HostRegister|HostUnregister"
        r"|HostGetFlags)$",
        r"course::(Stream|Event)::",
    ],
}

# Names a lesson's own namespace holds that its exercises may still not call: given code that
# wraps a library, the bench (the harness's measuring code for the lesson), or the interface's
# own dispatcher.
LESSON_DENIED = {
    "03": [(r"course::lesson03::bench", "the lesson's measuring code")],
    "04": [(r"course::lesson04::bench", "the lesson's measuring code")],
    "07": [(r"npp", "a CUDA library")],
    "11": [(r"course::lesson11::(launch_thrust|sort_batches|sort_keys|sort_pairs|SortBench)",
            "the given Thrust rung or the lesson's dispatcher")],
    "12": [(r"course::lesson12::bench", "the lesson's measuring code")],
    "13": [(r"course::lesson13::(bench|run_unfused\(|attention\()",
            "the lesson's measuring code, the given rung or the lesson's dispatcher")],
}

# Why a refused reference is refused, for the message: the first that matches names the reason;
# anything else is "not on the lesson's allowlist".
REASONS = [
    (r"cublas|cub::|thrust::|cusparse|curand|cufft|cudnn|cusolver|nvjpeg|cutensor|npp",
     "a CUDA library: the rung exists to write it"),
    (r"dlopen|dlsym|dlvsym|dlmopen|cudaGetDriverEntryPoint|cuGetProcAddress",
     "loading code at run time"),
    (r"course::(ceilings|measure|product|bench|fill_uniform|time_on_gpu|EventTimer|flush_l2"
     r"|poison_shared|quick_mode|sanitize_mode|sanitize_tool|base_seed|derive_seed|threshold"
     r"|plausible_bound|measure_speed|run_config)",
     "the harness's measuring, configuration and references"),
    (r"getenv|secure_getenv|setenv|putenv|unsetenv|clearenv|environ|__environ|program_invocation"
     r"|__libc_argv|getauxval",
     "the environment or command line"),
    (r"fopen|freopen|fdopen|open|openat|creat|read|write|pread|pwrite|close|dup|rename|unlink"
     r"|remove|mkdir|stat|lstat|fstat|access|std::filesystem|fstream|basic_filebuf|setvbuf"
     r"|sync_with_stdio|rdbuf|mmap|mprotect",
     "files"),
    (r"clock|time|gettimeofday|std::chrono|rdtsc|sleep|nanosleep|usleep|cudaEventElapsedTime",
     "a clock"),
    (r"pthread|std::thread|std::this_thread|fork|vfork|exec|system|popen|posix_spawn|kill|raise"
     r"|signal|sigaction|syscall|ptrace|prctl|abort",
     "processes, threads and signals"),
    (r"cudaStream|cudaEvent|cudaGraph|cudaLaunchHostFunc|cudaStreamAddCallback",
     "streams, events and graphs, which this lesson does not teach"),
    (r"cu[A-Z]\w+$", "the CUDA driver API"),
    (r"course::lesson\d\d::", "another lesson's code"),
    (r"course::", "the harness's internals"),
]

# --- Definitions: what a student object may define (global symbols) ---------------------------

# Weak definitions (inline functions and template instances the compiler emits) in these
# namespaces are the headers' code, not the student's. A weak definition of a function that is
# neither a template nor one of the inline functions below is refused: it could stand in for a
# library function.
HEADER_NAMESPACES = r"(std|__gnu_cxx|course|cuda|nvcuda|cooperative_groups|cub|thrust)::"
INLINE_NON_TEMPLATES = [
    r"std::__cxx11::to_string\(",
    r"course::NotImplemented::",
    r"course::CudaError::",
    r"(typeinfo|typeinfo name|vtable) for course::(NotImplemented|CudaError)$",
    r"DW\.ref\.__gxx_personality_v0$",
]

# --- Host instructions a student object may not contain --------------------------------------

# A system call, the time-stamp counter and the like, written as inline assembly on the host.
HOST_INSTRUCTIONS = [
    (r"\b(syscall|sysenter|int\s+\$0x80)\b", "a system call"),
    (r"\b(rdtscp?|rdpid|rdpmc)\b", "a clock"),
    (r"\b(cpuid|xgetbv|rdrand|rdseed)\b", "a processor query"),
]
