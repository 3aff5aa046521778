/* sim_wrap.cc: the generated entry of a user's kernel, a template-id or a declared parameter
 * list. The backend compiles it with the kernel source -include'd first and SIM_ENTRY set to
 * the manifest's entry as written (`sgemm<128, 128, 8, 8, 8>`), so the kernel is called by its
 * C++ name and instantiated here. sim_wrapped_entry takes the arguments as one array in the
 * kernel's own order and converts each to whatever its parameter declares; the kernel's
 * parameter kinds are exported for the runtime to check. Class-type parameters are refused. */
#ifndef SIM_ENTRY
#error "sim_wrap.cc is compiled by the emulator with -DSIM_ENTRY=<kernel entry>"
#endif

#include <cstddef>
#include <type_traits>
#include <utility>

namespace sim_wrap {

/* 'P' pointer, 'I' integer or enum, 'F' floating point, '?' anything else. */
template <typename T> constexpr char kind()
{
    typedef typename std::remove_cv<typename std::remove_reference<T>::type>::type U;
    return std::is_pointer<U>::value          ? 'P'
           : std::is_floating_point<U>::value ? 'F'
           : std::is_integral<U>::value || std::is_enum<U>::value ? 'I'
                                                                   : '?';
}

/* One argument, convertible to any pointer or arithmetic parameter type. The array is the
 * runtime's, outside every kernel range: reading it is not instrumented. */
struct arg {
    const sim_arg *a;
    template <typename T> __attribute__((no_sanitize_thread)) operator T *() const
    {
        return static_cast<T *>(a->u.p);
    }
    template <typename T, typename = typename std::enable_if<std::is_arithmetic<T>::value ||
                                                             std::is_enum<T>::value>::type>
    __attribute__((no_sanitize_thread)) operator T() const
    {
        return a->kind == SIM_ARG_F32 ? static_cast<T>(a->u.f) : static_cast<T>(a->u.i);
    }
};

template <typename... P> struct sig {
    static constexpr char kinds[sizeof...(P) + 1] = {kind<P>()..., 0};
};
template <typename... P> constexpr char sig<P...>::kinds[sizeof...(P) + 1];

template <typename... P, std::size_t... I>
void call(void (*f)(P...), const sim_arg *a, std::index_sequence<I...>)
{
    f(arg{a + I}...);
}

template <typename... P> void invoke(void (*f)(P...), const sim_arg *a)
{
    static_assert(((kind<P>() != '?') && ...),
                  "sim: a kernel parameter of class type (a struct passed by value) is not "
                  "modelled: the emulator passes pointers, integers and floats");
    call(f, a, std::index_sequence_for<P...>{});
}

template <typename... P> constexpr const char *kinds_of(void (*)(P...))
{
    return sig<P...>::kinds;
}

} // namespace sim_wrap

extern "C" __attribute__((visibility("default"))) void sim_wrapped_entry(const sim_arg *a)
{
    sim_wrap::invoke(&SIM_ENTRY, a);
}

extern "C" __attribute__((visibility("default")))
const char *const sim_wrapped_kinds = sim_wrap::kinds_of(&SIM_ENTRY);
