module example.com/mvtest/vmod/v2

go 1.26
