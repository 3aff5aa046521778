/* SPDX-License-Identifier: MIT */
/* sim_wrap.cc: the entries of a user's kernel file, template-ids or declared parameter lists,
 * compiled with the source -include'd first and SIM_WRAP_LIST set to SIM_WRAP(TAG, ENTRY) for
 * each entry as written (`sgemm<128, 128, 8, 8, 8>`; TAG: sim_entry_tag's hex digits): each
 * wrapper takes the arguments as one array in the kernel's order and converts each to the
 * declared parameter type; class-type parameters are refused. Every name here is reserved:
 * the user's macros (M, N, K, T...) are still defined. */
#ifndef SIM_WRAP_LIST
#error "sim_wrap.cc is compiled by the emulator with -DSIM_WRAP_LIST=SIM_WRAP(<tag>, <kernel entry>)..."
#endif

namespace __sim_wrap
{

/* 'P' pointer, 'I' integer or enum, 'F' floating point, '?' anything else. */
template <typename _Tp>
constexpr char __kind()
{
    typedef typename std::remove_cv<typename std::remove_reference<_Tp>::type>::type _Up;
    return std::is_pointer<_Up>::value                                ? 'P'
           : std::is_floating_point<_Up>::value                       ? 'F'
           : std::is_integral<_Up>::value || std::is_enum<_Up>::value ? 'I'
                                                                      : '?';
}

/* One argument, convertible to any pointer or arithmetic parameter type. The array is the
 * runtime's, outside every kernel range: reading it is not instrumented. */
struct __arg {
    const sim_arg *__a;
    template <typename _Tp>
    __attribute__((no_sanitize_thread)) operator _Tp *() const
    {
        return static_cast<_Tp *>(__a->u.p);
    }
    template <typename _Tp,
              typename = typename std::enable_if<std::is_arithmetic<_Tp>::value || std::is_enum<_Tp>::value>::type>
    __attribute__((no_sanitize_thread)) operator _Tp() const
    {
        return __a->kind == SIM_ARG_F32 ? static_cast<_Tp>(__a->u.f) : static_cast<_Tp>(__a->u.i);
    }
};

template <typename... _Ps>
struct __sig {
    static constexpr char __kinds[sizeof...(_Ps) + 1] = {__kind<_Ps>()..., 0};
};
template <typename... _Ps>
constexpr char __sig<_Ps...>::__kinds[sizeof...(_Ps) + 1];

template <typename... _Ps, std::size_t... _Is>
void __call(void (*__f)(_Ps...), const sim_arg *__a, std::index_sequence<_Is...>)
{
    __f(__arg{__a + _Is}...);
}

template <typename... _Ps>
void __invoke(void (*__f)(_Ps...), const sim_arg *__a)
{
    static_assert(((__kind<_Ps>() != '?') && ...),
                  "sim: a kernel parameter of class type (a struct passed by value) is not "
                  "modelled: the emulator passes pointers, integers and floats");
    __call(__f, __a, std::index_sequence_for<_Ps...>{});
}

template <typename... _Ps>
constexpr const char *__kinds_of(void (*)(_Ps...))
{
    return __sig<_Ps...>::__kinds;
}

} // namespace __sim_wrap

/* One entry's wrapper and its parameters' kinds, exported under its tag: each entry's product
 * exports its own alone (sim_link.c), so the link keeps only what that kernel reaches. */
#define SIM_WRAP(__tag, ...)                                                                                           \
    extern "C" __attribute__((visibility("default"))) void sim_wrapped_entry_##__tag(const sim_arg *__a)               \
    {                                                                                                                  \
        __sim_wrap::__invoke(&__VA_ARGS__, __a);                                                                       \
    }                                                                                                                  \
    extern "C" __attribute__((visibility("default"))) const char *const sim_wrapped_kinds_##__tag =                    \
        __sim_wrap::__kinds_of(&__VA_ARGS__);

SIM_WRAP_LIST
