#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ci_yaml.py: the CI examples and the GitHub Action read by a real YAML parser (PyYAML, with a
loader that takes GitLab's !reference tags), and judged as GitLab and GitHub would read them.

    python3 tests/ci_yaml.py CHECK     CHECK: gitlab-names, gitlab-workflow, gitlab-images,
                                       github-gpu-hosts, action
Prints what is wrong and exits 1, or exits 0. Used by tests/integration/ci_fit.sh.
"""
import re
import sys

import yaml

# GitLab's global keywords, and the old globals it still reads at the top level: a top-level
# key of one of these names is that keyword, never a job (docs: "Job names" and "Global
# keywords"). `pages` is the Pages deployment job, and YAML's true/false/null are no names.
GLOBAL_KEYWORDS = {"default", "include", "stages", "variables", "workflow"}
OLD_GLOBALS = {"image", "services", "cache", "before_script", "after_script", "types"}
# Keys only a job takes (workflow takes rules, default takes tags and image).
JOB_KEYS = {"script", "extends", "stage", "trigger", "needs", "only", "except"}


class Reference(list):
    """!reference [.job, key]: resolved against the whole file once it is read."""


class Loader(yaml.SafeLoader):
    pass


Loader.add_constructor("!reference", lambda loader, node: Reference(loader.construct_sequence(node)))


def load(path):
    with open(path, encoding="utf-8") as f:
        return yaml.load(f, Loader=Loader)


def resolve(doc, value):
    if isinstance(value, Reference):
        for key in value:
            doc = doc[key]
        return resolve(doc, doc) if isinstance(doc, Reference) else doc
    if isinstance(value, dict):
        return {k: resolve(doc, v) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(doc, v) for v in value]
    return value


def merged(gl, name):
    """A GitLab job with its `extends` applied: mappings merged key by key, the rest replaced."""
    job = dict(gl[name])
    parents = job.pop("extends", [])
    out = {}
    for parent in [parents] if isinstance(parents, str) else parents:
        deep_merge(out, merged(gl, parent))
    deep_merge(out, job)
    return resolve(gl, out)


def deep_merge(into, extra):
    for k, v in extra.items():
        if isinstance(v, dict) and isinstance(into.get(k), dict):
            deep_merge(into[k], v)
        else:
            into[k] = v


def gitlab_jobs(gl):
    return [k for k in gl if isinstance(k, str) and not k.startswith(".")
            and k not in GLOBAL_KEYWORDS | OLD_GLOBALS]


# --- a GitLab `rules: if:` evaluator: $VAR, "string", ==, !=, &&, ||, parentheses ---------------
TOKEN = re.compile(r'\s*(\$\w+|"[^"]*"|\'[^\']*\'|==|!=|&&|\|\||\(|\)|null)')


def evaluate(expr, env):
    tokens, at = [], 0
    while at < len(expr.rstrip()):
        m = TOKEN.match(expr, at)
        if not m:
            raise ValueError("cannot read rule %r at %d" % (expr, at))
        tokens.append(m.group(1))
        at = m.end()
    value, rest = _or(tokens, env)
    if rest:
        raise ValueError("trailing %r in %r" % (rest, expr))
    return bool(value)


def _or(t, env):
    left, t = _and(t, env)
    while t and t[0] == "||":
        right, t = _and(t[1:], env)
        left = left or right
    return left, t


def _and(t, env):
    left, t = _cmp(t, env)
    while t and t[0] == "&&":
        right, t = _cmp(t[1:], env)
        left = left and right
    return left, t


def _cmp(t, env):
    left, t = _atom(t, env)
    if t and t[0] in ("==", "!="):
        right, rest = _atom(t[1:], env)
        return (left == right) == (t[0] == "=="), rest
    return left, t


def _atom(t, env):
    tok = t[0]
    if tok == "(":
        value, rest = _or(t[1:], env)
        return value, rest[1:]
    if tok.startswith("$"):
        return env.get(tok[1:]) or None, t[1:]
    if tok == "null":
        return None, t[1:]
    return tok[1:-1], t[1:]


def rules_create(rules, env):
    """Whether a rules list creates its pipeline or job: the first rule whose `if` matches
    decides (`changes` counts as matching); none matching creates nothing."""
    for rule in rules:
        if "if" not in rule or evaluate(rule["if"], env):
            return rule.get("when", "on_success") != "never"
    return False


PUSH = {"CI_PIPELINE_SOURCE": "push", "CI_DEFAULT_BRANCH": "main", "CI_PROJECT_ID": "1"}
SCENARIOS = {
    "a push to a branch with an open merge request": dict(PUSH, CI_COMMIT_BRANCH="fix", CI_OPEN_MERGE_REQUESTS="g/p!7"),
    "the merge request's own pipeline": dict(PUSH, CI_PIPELINE_SOURCE="merge_request_event", CI_MERGE_REQUEST_IID="7",
                                             CI_MERGE_REQUEST_SOURCE_PROJECT_ID="1"),
    "a push to a branch without one": dict(PUSH, CI_COMMIT_BRANCH="fix"),
    "a push to the default branch": dict(PUSH, CI_COMMIT_BRANCH="main"),
    "a tag": dict(PUSH, CI_COMMIT_TAG="v1"),
    "a schedule": dict(PUSH, CI_PIPELINE_SOURCE="schedule", CI_COMMIT_BRANCH="main"),
    "a run from the web": dict(PUSH, CI_PIPELINE_SOURCE="web", CI_COMMIT_BRANCH="fix"),
}
WANT_PIPELINE = {name: name != "a push to a branch with an open merge request" for name in SCENARIOS}


def check_gitlab_names(gl, problems):
    for key, value in gl.items():
        if not isinstance(key, str):
            problems.append("top-level key %r: YAML reads it as %s, not a job name" % (key, type(key).__name__))
        elif key in GLOBAL_KEYWORDS | OLD_GLOBALS and isinstance(value, dict) and JOB_KEYS & value.keys():
            problems.append("job %r: a GitLab top-level keyword, so GitLab reads it as that keyword, not a job" % key)
        elif key == "pages":
            problems.append("job 'pages': GitLab deploys its output as the project's Pages site")


def check_gitlab_workflow(gl, problems):
    rules = (gl.get("workflow") or {}).get("rules")
    if rules is None:
        problems.append("no workflow:rules: a push to a branch with a merge request runs two pipelines")
        rules = [{}]
    for name, env in SCENARIOS.items():
        if rules_create(rules, env) != WANT_PIPELINE[name]:
            problems.append("%s: pipeline %s" % (name, "created" if not WANT_PIPELINE[name] else "not created"))
    check_gitlab_gpu_rules(gl, problems)


def check_gitlab_gpu_rules(gl, problems):
    """The workflow lets merge request pipelines in: a fork's must still reach no GPU job."""
    fork_mr = dict(SCENARIOS["the merge request's own pipeline"], CI_MERGE_REQUEST_SOURCE_PROJECT_ID="2")
    for name in gitlab_jobs(gl):
        job = merged(gl, name)
        if not set(job.get("tags", [])) & {"nvidia", "amd"}:
            continue
        if rules_create(job.get("rules", [{}]), fork_mr):
            problems.append("%s: runs a fork's merge request on a GPU runner" % name)
        if name != "upgrade-gate" and not rules_create(job.get("rules", [{}]), SCENARIOS["a push to the default branch"]):
            problems.append("%s: does not run on the default branch" % name)


def check_gitlab_images(gl, problems):
    builders = [n for n in gitlab_jobs(gl) if merged(gl, n).get("stage") == gl["stages"][0]]
    if not builders:
        problems.append("no job in the first stage builds the CI images")
    for name in builders:
        job = merged(gl, name)
        image = job.get("image")
        image = image.get("name") if isinstance(image, dict) else image
        script = "\n".join(job.get("script", []))
        if image != "debian:12" or "buildah" not in script:
            problems.append("%s: builds with %r in %r, not Debian 12's buildah in debian:12" % (name, script[:60], image))
    if "kaniko" in yaml.dump(gl):
        problems.append("kaniko is archived upstream: nothing may still use it")


# A self-hosted runner is a machine someone keeps: a job must not install onto it.
INSTALLS = re.compile(r"\bsudo\b|\bapt(-get)?\b|\bdpkg\b|install-deps\.sh(?![^\n]*--check)")


def check_github_gpu_hosts(gh, problems):
    for name, job in gh["jobs"].items():
        runner = job["runs-on"]
        if "self-hosted" not in (runner if isinstance(runner, list) else [runner]) or "container" in job:
            continue
        for step in job["steps"]:
            if "run" in step and INSTALLS.search(step["run"]):
                problems.append("%s: installs onto the self-hosted host: %s" % (name, step["run"].strip()))


def check_action(action, script, problems):
    if action.get("runs", {}).get("using") != "composite":
        problems.append("action.yml is not a composite action")
        return
    inputs = action.get("inputs", {})
    env = {}
    for step in action["runs"]["steps"]:
        if "${{" in step.get("run", ""):
            problems.append("a run: pastes an expression into shell code: %s" % step["run"])
        env.update(step.get("env", {}))
    for name in inputs:
        var = "INPUT_" + name.upper().replace("-", "_")
        if env.get(var) != "${{ inputs.%s }}" % name:
            problems.append("input %s does not reach the step as %s" % (name, var))
        if var not in script:
            problems.append("input %s: tools/gh_action.sh never reads %s" % (name, var))
    for var in sorted(set(re.findall(r"INPUT_[A-Z_]+", script)) - set(env)):
        problems.append("tools/gh_action.sh reads %s, which no input sets" % var)
    for name, out in action.get("outputs", {}).items():
        if "steps.run.outputs.%s" % name not in out.get("value", "") or "%s=" % name not in script:
            problems.append("output %s is not the step's" % name)


def main(check):
    problems = []
    if check.startswith("gitlab"):
        gl = load("ci/gitlab-ci.yml")
        {"gitlab-names": check_gitlab_names, "gitlab-workflow": check_gitlab_workflow,
         "gitlab-images": check_gitlab_images}[check](gl, problems)
    elif check == "github-gpu-hosts":
        check_github_gpu_hosts(load("ci/github-actions.yml"), problems)
    elif check == "action":
        try:
            with open("tools/gh_action.sh", encoding="utf-8") as f:
                check_action(load("action.yml"), f.read(), problems)
        except FileNotFoundError as e:
            problems.append("no %s" % e.filename)
    else:
        problems.append("unknown check %s" % check)
    print("\n".join(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
