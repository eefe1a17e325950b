# Dummy file to make this directory a package.
