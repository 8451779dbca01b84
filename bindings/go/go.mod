module charter

go 1.19
