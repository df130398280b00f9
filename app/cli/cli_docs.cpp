#include "cli_docs.h"

#include <algorithm>
#include <sstream>
#include <vector>

namespace ckpt::cli {
namespace {

// CLI11 hides what has an empty group; help and version are written once
// for the whole program, not per subcommand.
std::vector<const CLI::App*> visibleSubcommands(const CLI::App& app) {
    return app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty() && !s->get_disabled(); });
}

std::vector<const CLI::Option*> visibleOptions(const CLI::App& app, bool positional) {
    const CLI::Option* help = app.get_help_ptr();
    const CLI::Option* version = app.get_version_ptr();
    return app.get_options([&](const CLI::Option* o) {
        return !o->get_group().empty() && o != help && o != version && o->get_positional() == positional;
    });
}

// "diff", "catalog add": the words after "ckpt" that select the command.
std::string commandPath(const CLI::App& app) {
    if (!app.get_parent() || !app.get_parent()->get_parent()) return app.get_name();
    return commandPath(*app.get_parent()) + " " + app.get_name();
}

// The option's value as CLI11's help shows it, split: "TEXT:{auto,never}"
// is a TEXT with two choices, "INT:POSITIVE" an INT with a constraint.
struct ValueSpec {
    std::string placeholder;
    std::vector<std::string> choices;
    std::vector<std::string> constraints;
    bool number = false;
};

ValueSpec valueSpec(const CLI::Option& option) {
    ValueSpec spec;
    std::stringstream parts(option.get_type_name());
    std::string part;
    std::getline(parts, spec.placeholder, ':');
    while (std::getline(parts, part, ':')) {
        if (part.size() >= 2 && part.front() == '{' && part.back() == '}') {
            std::stringstream items(part.substr(1, part.size() - 2));
            for (std::string item; std::getline(items, item, ',');) spec.choices.push_back(item);
        } else {
            spec.constraints.push_back(part);
        }
    }
    static const std::vector<std::string> kNumbers = {"INT", "UINT", "FLOAT", "NUMBER", "N"};
    spec.number = std::find(kNumbers.begin(), kNumbers.end(), spec.placeholder) != kNumbers.end();
    return spec;
}

// Flags expect no value (CLI11 gives them expected(0)).
bool takesValue(const CLI::Option& option) { return option.get_expected_max() > 0 && option.get_type_size_max() > 0; }
// As CLI11's help decides "...": any number of values, not a fixed count.
bool repeatable(const CLI::Option& option) { return option.get_items_expected_max() >= CLI::detail::expected_max_vector_size; }

std::vector<std::string> optionNames(const CLI::Option& option) {
    std::vector<std::string> names;
    for (const std::string& s : option.get_snames()) names.push_back("-" + s);
    for (const std::string& l : option.get_lnames()) names.push_back("--" + l);
    return names;
}

// Roff-safe text: backslashes escaped, a line never starts a request, and a
// '-' that begins a word (an option name) is a minus, not a hyphen.
std::string roff(std::string_view text) {
    std::string out;
    bool lineStart = true;
    char previous = ' ';
    for (char c : text) {
        if (lineStart && (c == '.' || c == '\'')) out += "\\&";
        if (c == '\\') out += "\\e";
        else if (c == '-' && (previous == ' ' || previous == '(' || previous == '-' || previous == '\n')) out += "\\-";
        else out += c;
        lineStart = c == '\n';
        previous = c;
    }
    return out;
}

// An option's name: every '-' is a minus, so that it can be copied.
std::string optionRoff(std::string_view name) {
    std::string out;
    for (char c : name) out += c == '-' ? std::string("\\-") : std::string(1, c);
    return out;
}

// A description as a sentence: CLI11's help texts have no final period.
std::string sentence(std::string_view text) {
    std::string out = roff(text);
    if (!out.empty() && out.back() != '.') out += '.';
    return out;
}

std::string positionalText(const CLI::Option& positional) {
    std::string text = "\\fI" + roff(positional.get_name()) + "\\fR";
    if (repeatable(positional)) text += "\\ ...";
    return positional.get_required() ? text : "[" + text + "]";
}

std::string optionItem(const CLI::Option& option) {
    std::string head;
    for (const std::string& name : optionNames(option)) head += (head.empty() ? "" : ", ") + ("\\fB" + optionRoff(name) + "\\fR");
    std::string body = sentence(option.get_description());
    if (takesValue(option)) {
        const ValueSpec spec = valueSpec(option);
        if (spec.choices.empty()) {
            head += " \\fI" + roff(spec.placeholder) + "\\fR";
        } else {
            std::string alternatives;
            for (const std::string& c : spec.choices)
                alternatives += (alternatives.empty() ? "" : "|") + ("\\fB" + roff(c) + "\\fR");
            head += " " + alternatives;
        }
        if (repeatable(option)) head += " ...";
        for (const std::string& c : spec.constraints) body += " Value: " + roff(c) + ".";
        if (!option.get_default_str().empty()) body += " Default: " + roff(option.get_default_str()) + ".";
    }
    if (option.get_required()) body += " Required.";
    std::string excluded;
    for (const CLI::Option* other : option.get_excludes())
        excluded += (excluded.empty() ? "" : ", ") + ("\\fB" + optionRoff(other->get_name()) + "\\fR");
    if (!excluded.empty()) body += " Not with " + excluded + ".";
    return ".TP\n" + head + "\n" + body + "\n";
}

void commandSection(const CLI::App& app, std::string& out) {
    const std::string path = commandPath(app);
    const std::vector<const CLI::App*> subcommands = visibleSubcommands(app);
    const std::vector<const CLI::Option*> positionals = visibleOptions(app, true);
    const std::vector<const CLI::Option*> options = visibleOptions(app, false);
    out += ".SS \"ckpt " + roff(path) + "\"\n";
    out += ".B ckpt " + roff(path) + "\n";
    std::string synopsis;
    if (!options.empty()) synopsis += "[\\fIoptions\\fR]";
    for (const CLI::Option* p : positionals) synopsis += (synopsis.empty() ? "" : " ") + positionalText(*p);
    if (!subcommands.empty()) synopsis += (synopsis.empty() ? "" : " ") + std::string("\\fIcommand\\fR ...");
    if (!synopsis.empty()) out += synopsis + "\n";
    out += ".PP\n" + sentence(app.get_description()) + "\n";
    if (!subcommands.empty()) {
        std::string names;
        for (const CLI::App* s : subcommands) names += (names.empty() ? "" : ", ") + ("\\fB" + roff(s->get_name()) + "\\fR");
        out += "Commands: " + names + ".\n";
    }
    for (const CLI::Option* p : positionals)
        out += ".TP\n\\fI" + roff(p->get_name()) + "\\fR\n" + sentence(p->get_description()) + "\n";
    for (const CLI::Option* o : options) out += optionItem(*o);
    for (const CLI::App* s : subcommands) commandSection(*s, out);
}

std::string replaced(std::string text, std::string_view from, std::string_view to) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

std::string joined(const std::vector<std::string>& words) {
    std::string out;
    for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
    return out;
}

// One `case` arm per command for each of the completion's lookups.
struct CompletionTables {
    std::string subcommands, options, valueOptions, choices, numbers, dirArguments, noArguments;
};

void completionTables(const CLI::App& app, CompletionTables& t) {
    const std::string path = app.get_parent() ? commandPath(app) : "";
    const std::string arm = "        \"" + path + "\") echo \"";
    std::vector<std::string> subs, all, withValue, numeric;
    for (const CLI::App* s : visibleSubcommands(app)) subs.push_back(s->get_name());
    for (const CLI::Option* o : app.get_options([](const CLI::Option* o) { return !o->get_group().empty(); })) {
        if (o->get_positional()) continue;
        const std::vector<std::string> names = optionNames(*o);
        all.insert(all.end(), names.begin(), names.end());
        if (!takesValue(*o)) continue;
        withValue.insert(withValue.end(), names.begin(), names.end());
        const ValueSpec spec = valueSpec(*o);
        if (spec.number) numeric.insert(numeric.end(), names.begin(), names.end());
        for (const std::string& name : names)
            if (!spec.choices.empty())
                t.choices += "        \"" + path + " " + name + "\") echo \"" + joined(spec.choices) + "\" ;;\n";
    }
    const std::vector<const CLI::Option*> positionals = visibleOptions(app, true);
    const bool dirsOnly = !positionals.empty() && std::all_of(positionals.begin(), positionals.end(), [](const CLI::Option* p) {
        return p->get_name().find("DIR") != std::string::npos;
    });
    if (!subs.empty()) t.subcommands += arm + joined(subs) + "\" ;;\n";
    t.options += arm + joined(all) + "\" ;;\n";
    if (!withValue.empty()) t.valueOptions += arm + joined(withValue) + "\" ;;\n";
    if (!numeric.empty()) t.numbers += arm + joined(numeric) + "\" ;;\n";
    if (dirsOnly) t.dirArguments += "        \"" + path + "\") return 0 ;;\n";
    if (positionals.empty()) t.noArguments += "        \"" + path + "\") return 0 ;;\n";
    for (const CLI::App* s : visibleSubcommands(app)) completionTables(*s, t);
}

std::string caseFunction(const std::string& name, const std::string& argument, const std::string& arms, bool predicate) {
    return name + "() {\n    case \"" + argument + "\" in\n" + arms + "    esac\n" + (predicate ? "    return 1\n" : "") + "}\n";
}

}  // namespace

std::string manPage(const CLI::App& app, std::string_view manTemplate, std::string_view version, std::string_view date) {
    std::string commands;
    for (const CLI::App* s : visibleSubcommands(app)) commandSection(*s, commands);
    std::string page = replaced(replaced(std::string(manTemplate), "@VERSION@", version), "@DATE@", date);
    return replaced(page, "@COMMANDS@\n", commands);
}

std::string bashCompletion(const CLI::App& app) {
    CompletionTables t;
    completionTables(app, t);
    std::string out =
        "# bash completion for ckpt, written by ckpt-docgen from ckpt's own command line (app/cli/cli_docs.cpp).\n"
        "# Each _ckpt_* table is keyed by the command path: \"\", \"diff\", \"catalog add\".\n\n";
    out += caseFunction("_ckpt_subcommands", "$1", t.subcommands, false);
    out += caseFunction("_ckpt_options", "$1", t.options, false);
    out += caseFunction("_ckpt_value_options", "$1", t.valueOptions, false);
    out += caseFunction("_ckpt_choices", "$1 $2", t.choices, false);
    out += caseFunction("_ckpt_numbers", "$1", t.numbers, false);
    out += caseFunction("_ckpt_dir_arguments", "$1", t.dirArguments, true);
    out += caseFunction("_ckpt_no_arguments", "$1", t.noArguments, true);
    out += R"bash(
_ckpt_has() { [[ " $1 " == *" $2 "* ]]; }

_ckpt() {
    local cur=${COMP_WORDS[COMP_CWORD]} path="" word i
    # Walk the words before the cursor: a subcommand descends, an option that
    # takes a value skips it ("--opt=value" arrives as "--opt" "=" "value").
    for ((i = 1; i < COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        if _ckpt_has "$(_ckpt_value_options "$path")" "$word"; then
            [[ ${COMP_WORDS[i + 1]} == "=" ]] && ((i++))
            ((i++))
        elif [[ $word != -* ]] && _ckpt_has "$(_ckpt_subcommands "$path")" "$word"; then
            path=${path:+$path }$word
        fi
    done
    local prev=${COMP_WORDS[COMP_CWORD - 1]}
    if [[ $cur == "=" ]]; then
        cur=""
    elif [[ $prev == "=" ]]; then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    fi
    COMPREPLY=()
    if ((COMP_CWORD > 1)) && _ckpt_has "$(_ckpt_value_options "$path")" "$prev"; then
        local choices
        choices=$(_ckpt_choices "$path" "$prev")
        if [[ -n $choices ]]; then
            mapfile -t COMPREPLY < <(compgen -W "$choices" -- "$cur")
        elif ! _ckpt_has "$(_ckpt_numbers "$path")" "$prev"; then
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        fi
    elif [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$(_ckpt_options "$path")" -- "$cur")
    elif [[ -n $(_ckpt_subcommands "$path") ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$(_ckpt_subcommands "$path")" -- "$cur")
    elif _ckpt_dir_arguments "$path"; then
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -d -- "$cur")
    elif ! _ckpt_no_arguments "$path"; then
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    fi
    return 0
}
complete -F _ckpt ckpt
)bash";
    return out;
}

}  // namespace ckpt::cli
