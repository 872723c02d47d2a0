package ptyio

// Buffers reports how many read buffers p holds (made and not dropped or
// let go) and whether its parser goroutine was started.
func Buffers(p *Pump) (made int, parsing bool) { return p.made, p.parsing != nil }
