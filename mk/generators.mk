# The generator recipes of clients/README.md, run as written (tools/generators/run): each in an empty directory
# with openapi.yaml, its npm packages installed from tools/generators/<recipe>/package-lock.json and its Python
# packages from tools/generators/<recipe>/requirements.txt (hashed), against a portald built from this tree. The
# Python and Java recipes need python3 (venv, pip), Java 17 and Maven, which the machine has; Maven downloads the
# openapi-generator jar and the Java client's libraries into ~/.m2 on its first run, pip into .build/generators.

.PHONY: test-generators generators-lock tools-generators

# The Java recipe needs a JDK 17 (javac) and Maven; Debian 12 has both. python3 with venv: tools-python.
tools-generators: tools-python
	@{ command -v javac && command -v mvn; } >/dev/null || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y openjdk-17-jdk-headless maven; }

## test-generators: each generator recipe of clients/README.md, run as written against portald
test-generators: tools-generators
	GO=$(GO) $(GO) run ./tools/generators/run

## generators-lock: rewrite tools/generators/*/{package-lock.json,requirements.txt} from the recipes' package.json and requirements.in (review the diff)
generators-lock: tools-generators
	$(GO) run ./tools/generators/run -update-locks

TEST_TARGETS += test-generators
