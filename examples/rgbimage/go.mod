module example.com/rgbimage

go 1.26.8

require github.com/memview/memview v0.0.0

replace github.com/memview/memview => ../..
