package expr

// #cgo LDFLAGS: -lm
// #include <math.h>
import "C"

// PostgreSQL computes float8 ln, log10, exp, power, cbrt and atan2 (and
// the estimates that size numeric results) with the C library's libm.
// Go's math package is accurate to about one ulp but not the same
// function: math.Log(6.748…) is one ulp below glibc's log, so
// `ln(x)` printed 1.9095425048844383 where PostgreSQL prints …386 (found
// by the differential test). These call the same libm that PostgreSQL on
// this machine links, so the bits agree. A cgo call costs some tens of
// nanoseconds, less than the boxing these per-row functions already do.

func libmLog(x float64) float64      { return float64(C.log(C.double(x))) }
func libmLog10(x float64) float64    { return float64(C.log10(C.double(x))) }
func libmExp(x float64) float64      { return float64(C.exp(C.double(x))) }
func libmPow(x, y float64) float64   { return float64(C.pow(C.double(x), C.double(y))) }
func libmCbrt(x float64) float64     { return float64(C.cbrt(C.double(x))) }
func libmAtan2(y, x float64) float64 { return float64(C.atan2(C.double(y), C.double(x))) }
