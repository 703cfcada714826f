module example.org/devproj/stats

go 1.26.8
